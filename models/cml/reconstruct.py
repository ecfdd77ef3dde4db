"""Rain fields from links: baselines that treat each link as a point gauge at its midpoint.

`idw` (inverse distance weighting on a k-d tree) and `ordinary_kriging` (pykrige, spherical
variogram fitted per time step) map path-averaged rain rates (mm/h) onto a grid in a local
east/north km frame (links placed by `grid.link_midpoints_km`); `field_scores` compares a
map with a reference field.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgWarning
from scipy.spatial import cKDTree


def idw(
    points: np.ndarray, values: np.ndarray, grid: np.ndarray, power: float = 2.0, nnear: int = 8
) -> np.ndarray:
    """Inverse-distance-weighted values at `grid` points (m, 2) from `points` (n, 2)."""
    keep = np.isfinite(values)
    points, values = points[keep], values[keep]
    if len(values) == 0:
        return np.full(len(grid), np.nan)
    near = min(nnear, len(values))
    distance, index = cKDTree(points).query(grid, k=near)
    distance, index = distance.reshape(len(grid), near), index.reshape(len(grid), near)
    weights = 1.0 / np.maximum(distance, 1e-12) ** power
    exact = distance[:, 0] < 1e-12
    estimate = (weights * values[index]).sum(axis=1) / weights.sum(axis=1)
    estimate[exact] = values[index[exact, 0]]
    return estimate


def ordinary_kriging(points: np.ndarray, values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Ordinary kriging (pykrige) with a spherical variogram fitted to this time step."""
    from pykrige.ok import OrdinaryKriging

    keep = np.isfinite(values)
    points, values = points[keep], values[keep]
    if len(values) < 3 or np.ptp(values) == 0:  # nothing to fit: a constant field
        return np.full(len(grid), values.mean() if len(values) else np.nan)
    model = OrdinaryKriging(points[:, 0], points[:, 1], values, variogram_model="spherical")
    with warnings.catch_warnings():  # links sharing a midpoint make the system singular;
        warnings.simplefilter("ignore", LinAlgWarning)  # pykrige's inverse still solves it
        estimate, _ = model.execute("points", grid[:, 0], grid[:, 1])
    return np.clip(np.asarray(estimate), 0, None)  # rain is never negative


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
