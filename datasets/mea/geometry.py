"""Electrode array geometries (positions in µm): the Litke 512-electrode hexagonal arrays
(30 and 60 µm pitch) and plain grids. The Litke lattice here has the array's size and
pitch; the lab's own electrode numbering comes with its recordings' electrode map."""

from __future__ import annotations

import math

import numpy as np


def hexagonal(rows: int, columns: int, pitch_um: float) -> np.ndarray:
    """(rows·columns, 2) positions: rows pitch·√3/2 apart, odd rows shifted by pitch/2,
    centred on the origin."""
    r, c = np.mgrid[0:rows, 0:columns].astype(np.float64)
    x = c * pitch_um + (r % 2) * pitch_um / 2
    y = r * pitch_um * math.sqrt(3) / 2
    positions = np.stack([x.ravel(), y.ravel()], axis=1)
    return positions - positions.mean(axis=0)


def litke_512(pitch_um: float = 60.0) -> np.ndarray:
    """The 512 electrodes of a Litke array (16 rows of 32), 30 or 60 µm pitch."""
    if pitch_um not in (30.0, 60.0):
        raise ValueError(f"Litke 512 arrays have 30 or 60 µm pitch, not {pitch_um}")
    return hexagonal(16, 32, pitch_um)


def grid(rows: int, columns: int, pitch_um: float) -> np.ndarray:
    """(rows·columns, 2) positions of a square grid, centred on the origin."""
    r, c = np.mgrid[0:rows, 0:columns].astype(np.float64) * pitch_um
    positions = np.stack([c.ravel(), r.ravel()], axis=1)
    return positions - positions.mean(axis=0)
