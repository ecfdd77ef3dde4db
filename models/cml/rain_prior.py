"""The prior of the Bayesian reconstruction: intermittent lognormal rain over a Gaussian
random field with a power-law spectrum, and its two levels fitted to the links."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import ndtri

from .path_operator import PathOperator

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class RainPrior:
    """g: a zero-mean, unit-variance Gaussian random field with power spectrum |k|^−beta on
    a periodic grid `pad` times the reconstruction grid (so opposite edges do not correlate).
    Rain (mm/h) = median · exp(sigma_log (g − θ − ½)) · sigmoid((g − θ)/edge), θ = Φ⁻¹(1 −
    wet_fraction): the simulator's intermittent lognormal with its wet edge smoothed so that
    gradients pass. wet_fraction and median are fitted per time step (`fit_levels`)."""

    beta: float = 3.0
    sigma_log: float = 1.0
    pad: float = 1.5
    edge: float = 0.05


class FieldPrior:
    """RainPrior on a grid of `shape` (ny, nx), in torch; the latent v is white noise on
    the padded grid."""

    def __init__(
        self, prior: RainPrior, shape: tuple[int, int], dtype: Any, device: str | torch.device
    ) -> None:
        import torch

        self.prior, self.shape = prior, shape
        self.latent_shape = tuple(math.ceil(n * prior.pad) for n in shape)
        ky = np.fft.fftfreq(self.latent_shape[0])
        kx = np.fft.fftfreq(self.latent_shape[1])
        radius = np.hypot(*np.meshgrid(ky, kx, indexing="ij"))
        radius[0, 0] = np.inf  # no mean component
        power = radius ** (-prior.beta)
        amplitude = np.sqrt(power / power.mean())  # unit marginal variance
        half = amplitude[:, : self.latent_shape[1] // 2 + 1]  # the rfft half-plane
        self.amplitude = torch.as_tensor(half, dtype=dtype, device=device)

    def gaussian(self, v: Any) -> Any:
        """g on the reconstruction grid from white noise v (batch, *latent_shape)."""
        import torch

        g = torch.fft.irfft2(torch.fft.rfft2(v) * self.amplitude, s=self.latent_shape)
        return g[:, : self.shape[0], : self.shape[1]]

    def rain(self, v: Any, threshold: Any, median: Any, hard: bool = False) -> Any:
        """Rain (mm/h) from v with per-row threshold θ and median (batch,)."""
        import torch

        excess = self.gaussian(v) - threshold[:, None, None]
        level = median[:, None, None] * torch.exp(self.prior.sigma_log * (excess - 0.5))
        wet = (excess > 0).to(v.dtype) if hard else torch.sigmoid(excess / self.prior.edge)
        return level * wet


def threshold(wet_fraction: Any) -> np.ndarray:
    """θ = Φ⁻¹(1 − wet_fraction), +inf for a dry step."""
    return ndtri(1 - np.asarray(wet_fraction, dtype=float))


def fit_levels(
    field: FieldPrior,
    operator: PathOperator,
    path_rain_mm_h: np.ndarray,
    wet_mm_h: float = 0.1,
    window: int = 1,
    draws: int = 128,
    generator: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(wet_fraction, median mm/h) per time step by matching the links: the share of links
    with path-averaged rain above `wet_mm_h`, and the median rain of those links, against
    the same statistics of prior fields seen through the same link paths (solved by fixed
    point: the prior's wet threshold depends on the median). Both statistics are pooled
    over a centred window of `window` steps (rain's climate changes slowly).

    path_rain_mm_h: (steps, links), NaN where a link has no value. Dry steps get 0, 0.
    """
    import torch

    fractions = np.linspace(0.02, 0.95, 32)
    v = torch.randn(
        (draws, *field.latent_shape),
        generator=generator,
        dtype=field.amplitude.dtype,
        device=field.amplitude.device,
    )
    one = torch.ones(draws, dtype=v.dtype, device=v.device)
    sorted_paths = []  # per wet fraction: prior path averages at median 1, sorted
    with torch.no_grad():
        for fraction in fractions:
            theta = torch.as_tensor(threshold(fraction), dtype=v.dtype, device=v.device) * one
            along = operator.path_average(field.rain(v, theta, one, hard=True))
            sorted_paths.append(np.sort(along.cpu().numpy().ravel()))

    def prior_statistics(cut: float) -> tuple[np.ndarray, np.ndarray]:
        """Share of prior paths above `cut` and their median, per wet fraction."""
        share, median = np.empty(len(fractions)), np.empty(len(fractions))
        for i, paths in enumerate(sorted_paths):
            first = np.searchsorted(paths, cut, side="right")
            share[i] = 1 - first / len(paths)
            median[i] = paths[(first + len(paths)) // 2] if first < len(paths) else np.nan
        return share, median

    observed_wet = path_rain_mm_h > wet_mm_h
    steps = len(path_rain_mm_h)
    wet_fraction, level = np.zeros(steps), np.zeros(steps)
    for t in range(steps):
        if not observed_wet[t].any():  # dry now: nothing to reconstruct
            continue
        near = slice(max(0, t - window // 2), t + window // 2 + 1)
        share = observed_wet[near].sum() / max(np.isfinite(path_rain_mm_h[near]).sum(), 1)
        observed_median = np.median(path_rain_mm_h[near][observed_wet[near]])
        median = observed_median
        for _ in range(4):
            prior_share, prior_median = prior_statistics(wet_mm_h / median)
            order = np.argsort(prior_share)
            wet_fraction[t] = np.interp(share, prior_share[order], fractions[order])
            median = observed_median / np.interp(wet_fraction[t], fractions, prior_median)
        level[t] = median
    return wet_fraction, level
