"""The rain maps of a cml-reconstruct run, method by method: IDW and ordinary kriging from
the links' path rain, the Bayesian reconstruction (random-field prior, HMC) and the
diffusion samplers (dps, pnp, smc) from their path attenuation."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, cast, get_args

import numpy as np

from ...models.cml.bayesian import BayesianSettings, reconstruct_bayesian
from ...models.cml.diffusion.prior import load_prior
from ...models.cml.diffusion.reconstruct import reconstruct_diffusion
from ...models.cml.diffusion.settings import DiffusionSettings
from ...models.cml.grid import Grid, link_midpoints_km
from ...models.cml.kriging import OrdinaryKriging, Variogram
from ...models.cml.path_operator import PathOperator
from ...models.cml.reconstruct import InverseDistance
from .cml_inputs import LinkInputs
from .progress import Progress

Sampler = Literal["dps", "pnp", "smc", "tempered", "exchange"]


def reconstruct(
    inputs: LinkInputs,
    grid: Grid,
    methods: Sequence[str],
    samplers: tuple[BayesianSettings, DiffusionSettings, str | None],
    torch_placement: tuple[str, str],
    seed: int,
    progress: Progress,
    variogram: Variogram | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, Any]]:
    """Fields (steps, ny, nx) per method, seconds per method, and the probabilistic
    methods' extras (extra["std"][method], HMC's levels and acceptance, SMC's ESS, the
    latent offsets extra["offset_db"][method] of bayes and pnp with `--baseline latent`,
    and their latent wet-antenna A_max extra["wet_antenna_db"][method] with
    `--antenna-sd-db`);
    samplers: HMC's settings, the diffusion samplers' and their prior's weights file;
    torch_placement: (device, precision) of the Bayesian reconstructions."""
    import torch

    settings, diffusion, prior_file = samplers
    device, precision = torch_placement
    points, cells = link_midpoints_km(inputs.links, grid.origin), grid.points()
    steps = len(inputs.times)
    fields: dict[str, np.ndarray] = {}
    timings: dict[str, float] = {}
    extra: dict[str, Any] = {"std": {}, "ess": {}, "offset_db": {}, "wet_antenna_db": {}}
    prior = None
    for method in methods:
        began = time.perf_counter()
        progress(method, 0, None)  # the bar from the start: a method can take minutes
        if method == "bayes":
            operator = PathOperator.from_dataset(
                inputs.links, grid, device=device, dtype=getattr(torch, precision)
            )

            def report(i: int, n: int) -> None:
                progress("bayes", i, n)

            latent = settings.offset_sd_db is not None
            posterior = reconstruct_bayesian(
                inputs.above_reference_db if latent else inputs.attenuation_db,
                inputs.path_rain_mm_h,
                operator,
                (grid.ny, grid.nx),
                settings,
                seed=seed,
                on_iteration=report,
            )
            fields[method] = posterior.mean
            extra["std"][method] = posterior.std
            extra.update(
                wet_fraction=posterior.wet_fraction,
                median_mm_h=posterior.median_mm_h,
                acceptance=posterior.acceptance,
            )
            if posterior.offset_db is not None:
                extra["offset_db"][method] = posterior.offset_db
            if posterior.wet_antenna_db is not None:
                extra["wet_antenna_db"][method] = posterior.wet_antenna_db
        elif method in get_args(Sampler):
            if prior is None:
                prior = load_prior(prior_file, device, getattr(torch, precision))

            def step(i: int, n: int, m: str = method) -> None:
                progress(m, i, n)

            latent = diffusion.offset_sd_db is not None
            sampled = reconstruct_diffusion(
                inputs.above_reference_db if latent else inputs.attenuation_db,
                inputs.path_rain_mm_h,
                inputs.links,
                grid,
                prior,
                replace(diffusion, sampler=cast(Sampler, method)),
                seed=seed,
                on_step=step,
            )
            fields[method] = sampled.mean
            extra["std"][method] = sampled.std
            extra["ess"][method] = sampled.ess
            if sampled.swap_acceptance is not None:
                extra["swap_acceptance"] = sampled.swap_acceptance
            if sampled.offset_db is not None:
                extra["offset_db"][method] = sampled.offset_db
            if sampled.wet_antenna_db is not None:
                extra["wet_antenna_db"][method] = sampled.wet_antenna_db
        else:
            interpolate = (
                OrdinaryKriging(points, cells, variogram)
                if method == "kriging"
                else InverseDistance(points, cells)
            )
            maps = []
            for t in range(steps):
                maps.append(interpolate(inputs.path_rain_mm_h[t])[0])
                progress(method, t + 1, steps)
            fields[method] = np.stack(maps).reshape(steps, grid.ny, grid.nx)
        timings[method] = time.perf_counter() - began
    return fields, timings, extra
