"""Rain fields from links as a Bayesian inverse problem.

Observations: each sublink's attenuation above its dry baseline (dB). Forward operator:
the ITU-R P.838-3 power law integrated along the link path (`PathOperator`), plus
Pastorek wet-antenna attenuation. Prior: `RainPrior`, its levels fitted per step.
Likelihood: Gaussian with standard deviation noise_db + relative_noise·A (dB). With
`offset_sd_db` the observations are instead the attenuation above each link's dry
reference and each sublink's error in that reference is a latent variable, drawn by Gibbs
steps between HMC's (`baseline_offset`).
Posterior: HMC (`hmc`), all time steps and chains in one batch; the mean field and the
pointwise standard deviation are accumulated over post-warm-up states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .baseline_offset import BaselineOffsets
from .hmc import hmc
from .likelihood import LinkLikelihood
from .likelihood_defaults import (
    DRY_LIMIT_DB,
    NOISE_DB,
    RELATIVE_NOISE,
    WET_ANTENNA_MAX_DB,
    check_latent_offsets,
)
from .path_operator import PathOperator
from .rain_prior import FieldPrior, RainPrior, fit_levels, threshold


@dataclass(frozen=True)
class BayesianSettings:
    """chains per time step; iterations of HMC (warmup of them adapt the step) with
    `leapfrog` steps each; noise_db, relative_noise: observation error (dB, share of A);
    wet_antenna_max_db: A_max of the Pastorek wet-antenna attenuation modelled (dB; 0:
    none); level_window: time steps pooled
    when fitting the prior's levels; steps_per_batch: at most this many time steps are
    sampled together (memory grows with it; batches are split evenly); dry_limit_db:
    read the chain's dry steps (0 dB) as "below this attenuation" (None: as no rain); 3 dB
    is cml-reconstruct's default for every Bayesian method, the one it was evaluated with;
    offset_sd_db: None, the data are attenuation above the chain's baseline; a value (dB),
    they are attenuation above each link's dry reference, offset by a latent error of this
    prior standard deviation per sublink, shared by the maps of a batch (dry_limit_db must
    then be None: nothing is censored); antenna_sd_db: None, every link's wet antennas
    have A_max wet_antenna_max_db; a value (dB, with offset_sd_db), each sublink's A_max
    is latent too, prior N(wet_antenna_max_db, antenna_sd_db²) cut at 0, drawn with the
    offsets."""

    chains: int = 4
    iterations: int = 300
    warmup: int = 150
    leapfrog: int = 10
    noise_db: float = NOISE_DB
    relative_noise: float = RELATIVE_NOISE
    wet_antenna_max_db: float = WET_ANTENNA_MAX_DB
    level_window: int = 15
    steps_per_batch: int = 32
    prior: RainPrior = field(default_factory=RainPrior)
    dry_limit_db: float | None = DRY_LIMIT_DB
    offset_sd_db: float | None = None
    antenna_sd_db: float | None = None

    def __post_init__(self) -> None:
        check_latent_offsets(
            self.offset_sd_db, self.dry_limit_db, self.antenna_sd_db, self.wet_antenna_max_db
        )


@dataclass
class Posterior:
    """mean, std: (steps, ny, nx) rain in mm/h; wet_fraction, median_mm_h: the fitted prior
    levels per step; acceptance, step_size: HMC diagnostics per step (NaN when dry);
    offset_db: (links, sublinks) posterior mean of the dry reference's error (dB; None
    without latent offsets; NaN where no map was sampled); wet_antenna_db: the same for
    each sublink's latent wet-antenna A_max (dB; None unless latent)."""

    mean: np.ndarray
    std: np.ndarray
    wet_fraction: np.ndarray
    median_mm_h: np.ndarray
    acceptance: np.ndarray
    step_size: np.ndarray
    offset_db: np.ndarray | None = None
    wet_antenna_db: np.ndarray | None = None


def reconstruct_bayesian(
    attenuation_db: np.ndarray,
    path_rain_mm_h: np.ndarray,
    operator: PathOperator,
    shape: tuple[int, int],
    settings: BayesianSettings | None = None,
    seed: int = 0,
    steps: np.ndarray | None = None,
    on_iteration: Callable[[int, int], None] | None = None,
) -> Posterior:
    """Posterior rain fields at the time indices `steps` (default: all).

    attenuation_db: (time, links, sublinks) attenuation above baseline, NaN where missing;
    path_rain_mm_h: (time, links) path-averaged rain from the standard chain, used only to
    fit the prior's wet fraction and median. shape: the grid (ny, nx) of `operator`.
    on_iteration(done, total) reports HMC iterations over all batches.
    """
    import torch

    s = settings or BayesianSettings()
    dtype, device = operator.dtype, operator.device
    generator = torch.Generator(device=device).manual_seed(seed)
    prior = FieldPrior(s.prior, shape, dtype, device)
    chosen = np.arange(len(attenuation_db)) if steps is None else np.asarray(steps)
    wet_fraction, median = fit_levels(
        prior, operator, path_rain_mm_h, window=s.level_window, generator=generator
    )
    wet_fraction, median = wet_fraction[chosen], median[chosen]
    attenuation_db = attenuation_db[chosen]
    count = len(chosen)
    out = Posterior(
        mean=np.zeros((count, *shape)),
        std=np.zeros((count, *shape)),
        wet_fraction=wet_fraction,
        median_mm_h=median,
        acceptance=np.full(count, np.nan),
        step_size=np.full(count, np.nan),
    )
    wet_steps = np.flatnonzero(wet_fraction > 0)
    if s.offset_sd_db is not None:
        out.offset_db = np.zeros(attenuation_db.shape[1:])
    if s.antenna_sd_db is not None:
        out.wet_antenna_db = np.zeros(attenuation_db.shape[1:])
    dry = attenuation_db[wet_fraction == 0]
    batches = np.array_split(wet_steps, max(1, -(-len(wet_steps) // s.steps_per_batch)))
    total = len(batches) * s.iterations
    for number, chosen in enumerate(b for b in batches if len(b)):
        done = number * s.iterations
        report = (
            None if on_iteration is None else (lambda i, o=done: on_iteration(o + i + 1, total))
        )
        _sample(attenuation_db, chosen, dry, operator, prior, s, generator, out, report)
    sampled = np.isfinite(attenuation_db[wet_steps]).any(0)
    if out.offset_db is not None:
        out.offset_db = np.where(sampled, out.offset_db / max(1, len(batches)), np.nan)
    if out.wet_antenna_db is not None:
        out.wet_antenna_db = np.where(sampled, out.wet_antenna_db / max(1, len(batches)), np.nan)
    return out


def _sample(
    attenuation_db: np.ndarray,
    chosen: np.ndarray,
    dry_db: np.ndarray,
    operator: PathOperator,
    prior: FieldPrior,
    s: BayesianSettings,
    generator: Any,
    out: Posterior,
    on_iteration: Callable[[int], None] | None,
) -> None:
    """Sample the time steps `chosen` (s.chains chains each) and write them into `out`;
    dry_db: the data of the steps held dry, which latent offsets also explain."""
    import torch

    dtype, device = operator.dtype, operator.device
    rows = np.repeat(chosen, s.chains)

    def put(a: np.ndarray) -> Any:
        return torch.as_tensor(a[rows], dtype=dtype, device=device)

    likelihood = LinkLikelihood.of(
        operator,
        attenuation_db[rows],
        s.noise_db,
        s.relative_noise,
        s.wet_antenna_max_db,
        s.dry_limit_db,
    )
    theta, level = put(threshold(out.wet_fraction)), put(out.median_mm_h)

    def potential(v: Any) -> Any:
        return likelihood.potential(prior.rain(v, theta, level))

    total = torch.zeros((len(rows), *prior.shape), dtype=dtype, device=device)
    square = torch.zeros_like(total)
    offsets: BaselineOffsets | None = None
    refresh: Callable[[Any], None] | None = None
    offset_total = torch.zeros_like(likelihood.observed)
    antenna_total = torch.zeros_like(likelihood.observed)
    if s.offset_sd_db is not None:
        offsets = BaselineOffsets.of(
            likelihood,
            s.offset_sd_db,
            s.chains,
            dry_db,
            s.noise_db,
            s.relative_noise,
            s.antenna_sd_db,
        )
        likelihood.offset_db = torch.zeros_like(likelihood.observed)

        def redraw(v: Any, offsets: BaselineOffsets = offsets) -> None:
            with torch.no_grad():
                rain = prior.rain(v, theta, level)
            drawn = offsets.draw(likelihood, rain, generator)
            likelihood.offset_db, antennas = drawn
            if antennas is not None:
                likelihood.wet_antenna_db = antennas

        refresh = redraw

    def accumulate(v: Any) -> None:
        with torch.no_grad():
            rain = prior.rain(v, theta, level)
            total.add_(rain)
            square.add_(rain**2)
            if offsets is not None:
                offset_total.add_(likelihood.offset_db)
            if likelihood.wet_antenna_db is not None:
                antenna_total.add_(likelihood.wet_antenna_db)

    initial = torch.randn(
        (len(rows), *prior.latent_shape), generator=generator, dtype=dtype, device=device
    )
    result = hmc(
        potential,
        initial,
        s.iterations,
        s.warmup,
        s.leapfrog,
        generator=generator,
        on_sample=accumulate,
        on_iteration=on_iteration,
        refresh=refresh,
    )
    draws = (s.iterations - s.warmup) * s.chains
    per_step = (len(chosen), s.chains, *prior.shape)
    mean = total.reshape(per_step).sum(1) / draws
    second = square.reshape(per_step).sum(1) / draws
    out.mean[chosen] = mean.cpu().numpy()
    out.std[chosen] = (second - mean**2).clamp_min(0).sqrt().cpu().numpy()
    out.acceptance[chosen] = result.acceptance.reshape(len(chosen), -1).mean(1).cpu().numpy()
    out.step_size[chosen] = result.step.reshape(len(chosen), -1).mean(1).cpu().numpy()
    kept = s.iterations - s.warmup
    if offsets is not None and out.offset_db is not None:
        out.offset_db += (offset_total.mean(0) / kept).cpu().numpy()
    if out.wet_antenna_db is not None:
        out.wet_antenna_db += (antenna_total.mean(0) / kept).cpu().numpy()
