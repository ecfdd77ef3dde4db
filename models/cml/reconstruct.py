"""Rain fields from links: baselines that treat each link as a point gauge at its midpoint.

`idw` (inverse distance weighting on a k-d tree, as pycomlink's) and `ordinary_kriging`
(spherical variogram fitted per time step, as pykrige's; `kriging.py`) map path-averaged
rain rates (mm/h) onto a grid in a local east/north km frame (links placed by
`grid.link_midpoints_km`); `field_scores` compares a map with a reference field.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

IDW_LEAF_SIZE = 10
"""pycomlink's k-d tree leaf size (`Invdisttree`): with it, neighbours at equal distances
are taken in the same order, so the `nnear` cut-off keeps the same ones."""
IDW_EXACT_KM = 1e-10
"""A grid point this close to a link takes that link's value (pycomlink's threshold)."""


def idw(
    points: np.ndarray, values: np.ndarray, grid: np.ndarray, power: float = 2.0, nnear: int = 8
) -> np.ndarray:
    """Inverse-distance-weighted values at `grid` points (m, 2) from `points` (n, 2), with
    the `nnear` nearest finite values; equal to pycomlink's `IdwKdtreeInterpolator`, ties
    included."""
    keep = np.isfinite(values)
    points, values = points[keep], values[keep]
    if len(values) == 0:
        return np.full(len(grid), np.nan)
    near = min(nnear, len(values))
    distance, index = cKDTree(points, leafsize=IDW_LEAF_SIZE).query(grid, k=near)
    distance, index = distance.reshape(len(grid), near), index.reshape(len(grid), near)
    exact = distance[:, 0] < IDW_EXACT_KM
    weights = 1.0 / np.where(exact[:, None], 1.0, distance) ** power
    estimate = (weights * values[index]).sum(axis=1) / weights.sum(axis=1)
    estimate[exact] = values[index[exact, 0]]
    return estimate


def ordinary_kriging(points: np.ndarray, values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Ordinary kriging of one map with a spherical variogram fitted to it, as pykrige's
    `OrdinaryKriging` computes it (`models/cml/kriging.py`; for many maps over one network
    use its `OrdinaryKriging` class, which computes the distances once)."""
    from .kriging import OrdinaryKriging

    return OrdinaryKriging(points, grid)(values[None, :])[0]


@dataclass(frozen=True)
class FieldScores:
    """rmse and bias in mm/h, Pearson r; over cells where both fields are finite."""

    rmse: float
    bias: float
    pearson: float


def field_scores(estimate: np.ndarray, reference: np.ndarray) -> FieldScores:
    valid = np.isfinite(estimate) & np.isfinite(reference)
    difference = estimate[valid] - reference[valid]
    pearson = (
        float(np.corrcoef(estimate[valid], reference[valid])[0, 1])
        if np.std(estimate[valid]) > 0 and np.std(reference[valid]) > 0
        else float("nan")
    )
    return FieldScores(float(np.sqrt(np.mean(difference**2))), float(difference.mean()), pearson)
