"""A regular grid in a local east/north km frame, and link ends placed in that frame."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...datasets.cml.network import KM_PER_DEGREE, bilinear


def to_km(lat: Any, lon: Any, origin: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(east, north) in km of (lat, lon) degrees, equirectangular about `origin` (lat, lon)."""
    east = (np.asarray(lon) - origin[1]) * KM_PER_DEGREE * np.cos(np.radians(origin[0]))
    north = (np.asarray(lat) - origin[0]) * KM_PER_DEGREE
    return east, north


MAX_CELLS = 1 << 20
"""Most cells one map may have (a million: 2,000 × 2,000 km at 2 km)."""


@dataclass(frozen=True)
class Grid:
    """ny × nx cells of cell_km; cell centres at x0_km + (i + ½) cell_km east (and likewise
    north) of `origin` (lat, lon in degrees)."""

    origin: tuple[float, float]
    cell_km: float
    nx: int
    ny: int
    x0_km: float = 0.0
    y0_km: float = 0.0

    @property
    def x_km(self) -> np.ndarray:
        return self.x0_km + (np.arange(self.nx) + 0.5) * self.cell_km

    @property
    def y_km(self) -> np.ndarray:
        return self.y0_km + (np.arange(self.ny) + 0.5) * self.cell_km

    def points(self) -> np.ndarray:
        """Cell centres (east, north) in km, shape (ny·nx, 2), rows north-major."""
        x, y = np.meshgrid(self.x_km, self.y_km)
        return np.stack([x.ravel(), y.ravel()], axis=1)

    def with_cell(self, cell_km: float) -> Grid:
        """The same area (origin, south-west corner) in cells of `cell_km`, covering at
        least this grid's extent."""
        return Grid(
            self.origin,
            cell_km,
            max(1, math.ceil(self.nx * self.cell_km / cell_km - 1e-9)),
            max(1, math.ceil(self.ny * self.cell_km / cell_km - 1e-9)),
            self.x0_km,
            self.y0_km,
        )

    def resample(self, fields: np.ndarray, source: Grid) -> np.ndarray:
        """fields (steps, ny, nx) on `source` (same frame) interpolated bilinearly at this
        grid's cell centres; edges clamp."""
        col = (self.x_km - source.x0_km) / source.cell_km - 0.5
        row = (self.y_km - source.y0_km) / source.cell_km - 0.5
        rows, cols = np.meshgrid(row, col, indexing="ij")
        values = bilinear(fields, cols.ravel(), rows.ravel())
        return values.reshape(len(fields), self.ny, self.nx)

    @classmethod
    def covering(cls, dataset: Any, cell_km: float, margin_km: float = 2.0) -> Grid:
        """The smallest grid holding every link of an OpenSense dataset, plus a margin."""
        origin = (float(dataset["site_0_lat"].mean()), float(dataset["site_0_lon"].mean()))
        x0, y0, x1, y1 = link_ends_km(dataset, origin)
        east, north = np.concatenate([x0, x1]), np.concatenate([y0, y1])
        west, south = east.min() - margin_km, north.min() - margin_km
        nx = int(np.ceil((east.max() + margin_km - west) / cell_km))
        ny = int(np.ceil((north.max() + margin_km - south) / cell_km))
        if nx * ny > MAX_CELLS:
            raise ValueError(
                f"the links span {nx * cell_km:.0f} × {ny * cell_km:.0f} km: {nx} × {ny} cells of "
                f"{cell_km:g} km, more than the {MAX_CELLS:,} a map may have; check the links' "
                "coordinates, or choose larger cells"
            )
        return cls(origin, cell_km, nx, ny, west, south)


def link_ends_km(
    dataset: Any, origin: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x0, y0, x1, y1) km of each link of an OpenSense dataset in the frame of `origin`."""
    x0, y0 = to_km(dataset["site_0_lat"].values, dataset["site_0_lon"].values, origin)
    x1, y1 = to_km(dataset["site_1_lat"].values, dataset["site_1_lon"].values, origin)
    return x0, y0, x1, y1


def link_midpoints_km(dataset: Any, origin: tuple[float, float]) -> np.ndarray:
    """Midpoints (east, north) in km of every link of an OpenSense dataset: (links, 2)."""
    x0, y0, x1, y1 = link_ends_km(dataset, origin)
    return np.stack([(x0 + x1) / 2, (y0 + y1) / 2], axis=1)
