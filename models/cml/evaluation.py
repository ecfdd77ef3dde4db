"""Scores of rain maps against a truth: the probabilistic ones (CRPS, interval coverage)
and the rainfall statistics a hydrologist compares (wet-area fraction, intensity
quantiles, spectral slope).

The posteriors are summarised by their mean and standard deviation per cell, so CRPS and
coverage are those of the Gaussian with that mean and spread (a summary of the
posterior, not its full shape; rain's posterior is skewed, so these flatter neither
method in particular).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri
from scipy.stats import norm

from ...datasets.cml.rain_fields import spectral_slope

WET_MM_H = 0.1
"""A cell is wet above this rain rate."""


def crps_gaussian(mean: np.ndarray, std: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Continuous ranked probability score (mm/h) of N(mean, std²) for `truth`, per cell
    (Gneiting & Raftery 2007, eq. 21); std = 0 gives |mean − truth|."""
    std = np.asarray(std, dtype=float)
    error = np.asarray(truth, dtype=float) - mean
    safe = np.where(std > 0, std, 1.0)
    z = error / safe
    score = safe * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))
    return np.where(std > 0, score, np.abs(error))


def coverage(mean: np.ndarray, std: np.ndarray, truth: np.ndarray, level: float = 0.9) -> float:
    """Share of finite cells whose truth lies in the central `level` interval of
    N(mean, std²)."""
    half = ndtri(0.5 + level / 2) * std
    inside = np.abs(truth - mean) <= half
    valid = np.isfinite(truth) & np.isfinite(mean) & np.isfinite(std)
    return float(inside[valid].mean())


@dataclass(frozen=True)
class RainStatistics:
    """wet_fraction: share of cells above WET_MM_H; p50, p90, p99: quantiles (mm/h) of
    the wet cells' rain; slope: of the radially averaged power spectrum (log-log, per
    cell), NaN for maps without structure. Means over the maps given."""

    wet_fraction: float
    p50_mm_h: float
    p90_mm_h: float
    p99_mm_h: float
    slope: float


def rain_statistics(maps: np.ndarray) -> RainStatistics:
    """Statistics of maps (steps, ny, nx) in mm/h; NaN cells count as missing."""
    maps = np.asarray(maps, dtype=float)
    valid = np.isfinite(maps)
    wet = maps[valid & (maps > WET_MM_H)]
    quantiles = np.quantile(wet, [0.5, 0.9, 0.99]) if len(wet) else np.full(3, np.nan)
    slopes = [spectral_slope(np.nan_to_num(m)) for m in maps if np.nanstd(m) > 0]
    return RainStatistics(
        wet_fraction=float(np.mean(maps[valid] > WET_MM_H)),
        p50_mm_h=float(quantiles[0]),
        p90_mm_h=float(quantiles[1]),
        p99_mm_h=float(quantiles[2]),
        slope=float(np.mean(slopes)) if slopes else float("nan"),
    )
