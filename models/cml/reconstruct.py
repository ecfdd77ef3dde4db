"""Rain fields from links: baselines that treat each link as a point gauge at its midpoint.

`idw` (inverse distance weighting on a k-d tree, as pycomlink's; `InverseDistance` for many
maps over one network) and `ordinary_kriging`
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
    included. For many maps over one network use `InverseDistance`."""
    return InverseDistance(points, grid, power, nnear)(values)[0]


class InverseDistance:
    """IDW of many maps over one network: the neighbours and weights of every grid point
    are found once for each set of links with a value (the maps of a period mostly share
    one), so a map costs a weighted sum. Map by map equal to `idw`, and so to pycomlink's
    `IdwKdtreeInterpolator`.

    points: (n, 2) link positions in km; grid: (m, 2) points to map, in km; power: of the
    inverse distance; nnear: neighbours used (the finite values nearest each grid point).

    Example:
        >>> import numpy as np
        >>> points = np.array([[0.0, 0.0], [2.0, 0.0]])
        >>> maps = InverseDistance(points, np.array([[1.0, 0.0], [2.0, 0.0]]))
        >>> maps(np.array([[1.0, 3.0], [np.nan, 4.0]])).round(6).tolist()
        [[2.0, 3.0], [4.0, 4.0]]
    """

    KEPT = 16
    """Sets of reporting links whose neighbours are kept (least recent dropped)."""

    def __init__(
        self, points: np.ndarray, grid: np.ndarray, power: float = 2.0, nnear: int = 8
    ) -> None:
        self.points = np.asarray(points, dtype=float)
        self.grid = np.asarray(grid, dtype=float)
        self.power = power
        self.nnear = nnear
        self._neighbours: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """Maps (steps, m) in the values' unit from `values` (steps, n) or (n,); NaN values
        are left out of their map; a map without any value is NaN."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        out = np.full((len(values), len(self.grid)), np.nan)
        for t, z in enumerate(values):
            keep = np.isfinite(z)
            if keep.any():
                index, weights = self._weights(keep)
                out[t] = (weights * z[index]).sum(axis=1)
        return out

    def _weights(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indices (m, k) of each grid point's nearest reporting links and their weights
        (summing to one; a grid point on a link takes that link's value)."""
        key = np.packbits(keep).tobytes()
        found = self._neighbours.pop(key, None)
        if found is None:
            reporting = np.flatnonzero(keep)
            near = min(self.nnear, len(reporting))
            tree = cKDTree(self.points[reporting], leafsize=IDW_LEAF_SIZE)
            distance, index = tree.query(self.grid, k=near)
            distance = distance.reshape(len(self.grid), near)
            index = index.reshape(len(self.grid), near)
            exact = distance[:, 0] < IDW_EXACT_KM
            weights = 1.0 / np.where(exact[:, None], 1.0, distance) ** self.power
            weights /= weights.sum(axis=1, keepdims=True)
            weights[exact] = 0.0
            weights[exact, 0] = 1.0
            found = (reporting[index], weights)
            if len(self._neighbours) >= self.KEPT:
                self._neighbours.pop(next(iter(self._neighbours)))
        self._neighbours[key] = found  # most recent last
        return found


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
