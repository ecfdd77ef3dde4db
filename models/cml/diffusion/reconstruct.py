"""Rain maps from links with the diffusion prior: the posterior of each map's field given
its sublinks' attenuation, sampled by DPS, plug-and-play (DiffPIR) or twisted SMC
(`posterior`), or exactly in the prior's latent space by tempered SMC or replica exchange
(`latent`).

The prior was trained on cells of its own size (2 km, `RainPriorModel.cell_km`); maps are
sampled on a grid of that cell over the requested area and interpolated bilinearly onto
the requested grid. Maps where no link's chain rain exceeds `wet_mm_h` are dry (zero, as
the chain says) and are not sampled. With `DiffusionSettings.offset_sd_db` (PnP) the data
are attenuation above each link's dry reference and each sublink's error in it is a latent
offset, redrawn from its conditional given the fields after every proximal step; the dry
maps' data inform it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..baseline_offset import BaselineOffsets
from ..grid import Grid
from ..likelihood import LinkLikelihood
from ..path_operator import PathOperator
from .latent import replica_exchange, tempered_smc
from .posterior import dps, pnp, smc
from .prior import RainPriorModel
from .settings import DiffusionSettings
from .transform import to_rain


@dataclass
class DiffusionPosterior:
    """mean, std: (maps, ny, nx) rain in mm/h on the requested grid; ess: the smallest
    effective sample size over each map's chain (the draw count for DPS; NaN when dry);
    swap_acceptance: replica exchange's share of accepted swaps per adjacent pair of
    temperatures, over its batches (None for the other samplers); offset_db: (links,
    sublinks) the final draws' mean error of each dry reference (dB; None without latent
    offsets; NaN where no sampled map observed the sublink); wet_antenna_db: the same of
    each sublink's latent wet-antenna A_max (dB; None unless latent)."""

    mean: np.ndarray
    std: np.ndarray
    ess: np.ndarray
    swap_acceptance: np.ndarray | None = None
    offset_db: np.ndarray | None = None
    wet_antenna_db: np.ndarray | None = None


def reconstruct_diffusion(
    attenuation_db: np.ndarray,
    path_rain_mm_h: np.ndarray,
    links: Any,
    grid: Grid,
    prior: RainPriorModel,
    settings: DiffusionSettings | None = None,
    seed: int = 0,
    on_step: Callable[[int, int], None] | None = None,
) -> DiffusionPosterior:
    """Posterior mean and standard deviation of every map on `grid`.

    attenuation_db: (maps, links, sublinks) above the chain's baseline (with latent offsets:
    above each link's dry reference), NaN where missing; path_rain_mm_h: (maps, links) the
    chain's rain, used only to tell dry maps; links: the OpenSense dataset of the links
    (their ends, frequency, polarization).
    """
    import torch

    s = settings or DiffusionSettings()
    network = prior.network
    dtype, device = next(network.parameters()).dtype, next(network.parameters()).device
    sampling = grid.with_cell(prior.cell_km)
    operator = PathOperator.from_dataset(links, sampling, dtype=dtype, device=str(device))
    shape = (sampling.ny, sampling.nx)
    maps = len(attenuation_db)
    mean, std = np.zeros((maps, *shape)), np.zeros((maps, *shape))
    ess = np.full(maps, np.nan)
    wet = np.flatnonzero(np.nan_to_num(path_rain_mm_h).max(axis=1) > s.wet_mm_h)
    batches = [b for b in np.array_split(wet, -(-len(wet) // s.maps_per_batch)) if len(b)]
    generator = torch.Generator(device=device).manual_seed(seed)
    swaps: list[np.ndarray] = []
    dry = np.setdiff1d(np.arange(maps), wet)
    offset_sum = np.zeros(attenuation_db.shape[1:])
    antenna_sum = np.zeros(attenuation_db.shape[1:])
    done, total = 0, len(batches) * s.steps
    for batch in batches:
        chains = s.temperatures if s.sampler == "exchange" else s.draws  # per map
        rows = np.repeat(batch, chains)
        likelihood = LinkLikelihood.of(
            operator,
            attenuation_db[rows],
            s.noise_db,
            s.relative_noise,
            s.wet_antenna_max_db,
            s.dry_limit_db,
        )

        def potential(x0: Any, likelihood: LinkLikelihood = likelihood) -> Any:
            return likelihood.potential(to_rain(x0))

        refresh: Callable[[Any], None] | None = None
        if s.offset_sd_db is not None:
            offsets = BaselineOffsets.of(
                likelihood,
                s.offset_sd_db,
                chains,
                attenuation_db[dry],
                s.noise_db,
                s.relative_noise,
                s.antenna_sd_db,
            )
            likelihood.offset_db = torch.zeros_like(likelihood.observed)

            def redraw(
                x0: Any, likelihood: LinkLikelihood = likelihood, offsets: BaselineOffsets = offsets
            ) -> None:
                likelihood.offset_db, antennas = offsets.draw(likelihood, to_rain(x0), generator)
                if antennas is not None:
                    likelihood.wet_antenna_db = antennas

            refresh = redraw

        def report(i: int, n: int, offset: int = done) -> None:
            if on_step is not None:
                on_step(offset + i, total)

        common: dict[str, Any] = dict(
            steps=s.steps,
            clip=s.clip,
            generator=generator,
            dtype=dtype,
            device=device,
            on_step=report,
        )
        if s.sampler == "dps":
            out = dps(
                prior.noise,
                potential,
                (len(batch), *shape),
                scale=s.scale,
                samples=s.draws,
                **common,
            )
        elif s.sampler == "pnp":
            out = pnp(
                prior.noise,
                potential,
                (len(batch), *shape),
                strength=s.strength,
                samples=s.draws,
                refresh=refresh,
                **common,
            )
        elif s.sampler == "smc":
            out = smc(
                prior.noise,
                potential,
                (len(batch), *shape),
                particles=s.draws,
                strength=s.strength,
                **common,
            )
        elif s.sampler == "tempered":
            out = tempered_smc(
                prior.noise,
                potential,
                (len(batch), *shape),
                particles=s.draws,
                moves=s.moves,
                **common,
            )
        else:
            out = replica_exchange(
                prior.noise,
                potential,
                (len(batch), *shape),
                draws=s.draws,
                temperatures=s.temperatures,
                **common,
            )
            swaps.append(out.swap_acceptance)
        done += s.steps
        with torch.no_grad():
            rain = to_rain(out.x0).double()
            w = out.weights.double()[..., None, None]
            first = (w * rain).sum(1)
            second = (w * rain**2).sum(1)
        mean[batch] = first.cpu().numpy()
        std[batch] = (second - first**2).clamp_min(0).sqrt().cpu().numpy()
        ess[batch] = float(out.ess.min())
        if likelihood.offset_db is not None:
            offset_sum += likelihood.offset_db.double().mean(0).cpu().numpy()
        if likelihood.wet_antenna_db is not None:
            antenna_sum += likelihood.wet_antenna_db.double().mean(0).cpu().numpy()
    if sampling != grid:
        mean, std = grid.resample(mean, sampling), grid.resample(std, sampling)
    sampled = np.isfinite(attenuation_db[wet]).any(0)
    offset_db = antenna_db = None
    if s.offset_sd_db is not None:
        offset_db = np.where(sampled, offset_sum / max(1, len(batches)), np.nan)
    if s.antenna_sd_db is not None:
        antenna_db = np.where(sampled, antenna_sum / max(1, len(batches)), np.nan)
    swap = np.mean(swaps, axis=0) if swaps else None
    return DiffusionPosterior(mean, std, ess, swap, offset_db, antenna_db)
