"""Ordinary kriging of many rain maps over one link network.

The same estimator as pykrige's `OrdinaryKriging(..., variogram_model="spherical")`
(vectorised backend, exact values at coincident points), organised for a network whose
links do not move:

- distances link–link and link–cell are computed once per network, not per map;
- each map is solved in the dual form: w = A⁻¹ [z; 0] (one (n+1)-system, n links), then
  the map is B·w with B the −γ(link–cell distance) matrix — n·m work per map instead of
  the n²·m of forming every cell's kriging weights (m cells);
- with one variogram for every map (`variogram=`, e.g. climatological as in pycomlink's
  `OrdinaryKrigingInterpolator` and RAINLINK), maps with the same links reporting share one
  LU factorisation and are solved as one multi-right-hand-side system.

Without `variogram`, a spherical variogram is fitted to each map as pykrige fits it
(`fit_spherical`: `nlags` equal-width distance bins, soft-L1 least squares).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgWarning, lu_factor, lu_solve
from scipy.optimize import least_squares
from scipy.spatial.distance import cdist, pdist

EXACT_KM = 1e-10
"""A cell this close to a link takes the link's value (pykrige's `eps`)."""


@dataclass(frozen=True)
class Variogram:
    """Spherical variogram: γ(d) = nugget + psill·(3d/2r − d³/2r³) for d ≤ r, psill +
    nugget beyond; psill and nugget in (mm/h)², range_km in km."""

    psill: float
    range_km: float
    nugget: float

    @classmethod
    def from_sill(cls, sill: float, range_km: float, nugget: float) -> Variogram:
        """From the total sill (psill + nugget), as pycomlink and pykrige's dicts give it."""
        return cls(sill - nugget, range_km, nugget)

    def __call__(self, d: np.ndarray) -> np.ndarray:
        r = self.range_km
        inside = self.psill * (1.5 * d / r - 0.5 * (d / r) ** 3) + self.nugget
        return np.where(d <= r, inside, self.psill + self.nugget)


def fit_spherical(points: np.ndarray, values: np.ndarray, nlags: int = 6) -> Variogram:
    """pykrige's automatic fit: semivariances ½(z_i − z_j)² averaged in `nlags` equal-width
    bins of distance, and (psill, range, nugget) by soft-L1 least squares from pykrige's
    start and bounds. Needs at least two points."""
    d = pdist(points)
    g = 0.5 * pdist(values[:, None], metric="sqeuclidean")
    low, high = d.min(), d.max()
    width = (high - low) / nlags
    edges = [low + k * width for k in range(nlags)] + [high + 0.001]
    lags, semivariance = [], []
    for k in range(nlags):
        inside = (d >= edges[k]) & (d < edges[k + 1])
        if inside.any():
            lags.append(d[inside].mean())
            semivariance.append(g[inside].mean())
    x, y = np.array(lags), np.array(semivariance)
    start = [y.max() - y.min(), 0.25 * x.max(), y.min()]
    bounds = ([0.0, 0.0, 0.0], [10.0 * y.max(), x.max(), y.max()])

    def residuals(m: np.ndarray) -> np.ndarray:
        return Variogram(*(float(v) for v in m))(x) - y

    fitted = least_squares(residuals, start, bounds=bounds, loss="soft_l1").x
    return Variogram(*(float(v) for v in fitted))


class OrdinaryKriging:
    """Kriging of rain at `cells` (m, 2; km) from link midpoints `points` (n, 2; km).

    Example:
        >>> points = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
        >>> kriging = OrdinaryKriging(points, np.array([[1.0, 1.0]]))
        >>> maps = kriging(np.array([[1.0, 2.0, 3.0]]))  # one map, mm/h at each link
        >>> maps.shape
        (1, 1)
    """

    def __init__(
        self, points: np.ndarray, cells: np.ndarray, variogram: Variogram | None = None
    ) -> None:
        self.points = np.asarray(points, dtype=float)
        self.variogram = variogram
        self._between = cdist(self.points, self.points)
        self._to_cells = cdist(self.points, np.asarray(cells, dtype=float))  # (n, m)
        self._systems: dict[bytes, tuple[np.ndarray, _System]] = {}

    def __call__(self, values: np.ndarray) -> np.ndarray:
        """Maps (steps, m) in mm/h from path rain `values` (steps, n); NaN values are left
        out of their map; a map with fewer than three values, or all equal, is their mean
        (constant); rain is clipped at 0."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        out = np.empty((len(values), self._to_cells.shape[1]))
        for t, z in enumerate(values):
            keep = np.isfinite(z)
            if keep.sum() < 3 or np.ptp(z[keep]) == 0:
                out[t] = z[keep].mean() if keep.any() else np.nan
                continue
            out[t] = self._map(z[keep], keep)
        return np.clip(out, 0, None)

    def _map(self, z: np.ndarray, keep: np.ndarray) -> np.ndarray:
        rhs = np.append(z, 0.0)
        if self.variogram is None:
            variogram = fit_spherical(self.points[keep], z)
            system = _System(self._matrix(variogram, keep))
            return self._cells_matrix(variogram, keep).T @ system.solve(rhs)
        key = keep.tobytes()
        if key not in self._systems:
            self._systems[key] = (
                self._cells_matrix(self.variogram, keep),
                _System(self._matrix(self.variogram, keep)),
            )
        cells, system = self._systems[key]
        return cells.T @ system.solve(rhs)

    def _matrix(self, variogram: Variogram, keep: np.ndarray) -> np.ndarray:
        """The kriging matrix [[−γ(d_ij) (0 on the diagonal), 1], [1ᵀ, 0]]."""
        n = int(keep.sum())
        a = np.zeros((n + 1, n + 1))
        a[:n, :n] = -variogram(self._between[np.ix_(keep, keep)])
        np.fill_diagonal(a, 0.0)
        a[n, :n] = a[:n, n] = 1.0
        return a

    def _cells_matrix(self, variogram: Variogram, keep: np.ndarray) -> np.ndarray:
        """(n+1, m): −γ(link–cell distance), 0 where a cell sits on a link, and a row of 1."""
        d = self._to_cells[keep]
        b = np.where(d <= EXACT_KM, 0.0, -variogram(d))
        return np.vstack([b, np.ones(d.shape[1])])


class _System:
    """A kriging matrix, LU-factorised once; singular to working precision (two links at
    one midpoint give rows equal but for the nugget, which a fit may leave at 1e-22) it
    is solved by least squares instead."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LinAlgWarning)
            self.lu = lu_factor(a, check_finite=False)
        pivots = np.abs(np.diag(self.lu[0]))
        self.singular = bool(np.any(pivots <= 1e-12 * pivots.max()))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        if self.singular:
            return np.linalg.lstsq(self.a, rhs, rcond=None)[0]
        return lu_solve(self.lu, rhs, check_finite=False)
