"""Electrode array geometries (positions in µm): the Litke 512-electrode hexagonal arrays
(30 and 60 µm pitch), plain grids, and any probe a probeinterface file describes. The Litke
lattice here has the array's size and pitch; the lab's own electrode numbering comes with
its recordings' electrode map."""

from __future__ import annotations

import math
import os

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


def from_probe_file(path: str | os.PathLike[str]) -> np.ndarray:
    """(channels, 2) positions of every contact in a probeinterface file (JSON, or any
    format probeinterface's read_probeinterface takes), in channel order where the probe
    wires contacts to channels (device_channel_indices), else in contact order; µm."""
    import probeinterface

    group = probeinterface.read_probeinterface(str(path))
    positions, channels = [], []
    for probe in group.probes:
        xy = np.asarray(probe.contact_positions, float)[:, :2]
        if probe.si_units != "um":
            raise ValueError(f"{path}: field 'si_units': {probe.si_units!r}, expected 'um'")
        positions.append(xy)
        wired = probe.device_channel_indices
        channels.append(None if wired is None else np.asarray(wired))
    xy = np.concatenate(positions)
    if all(c is not None for c in channels):
        order = np.argsort(np.concatenate(channels), kind="stable")
        return xy[order]
    return xy


def from_map_file(path: str | os.PathLike[str]) -> np.ndarray:
    """(electrodes, 2) positions (µm) from an electrode map: a CSV with columns
    `electrode, x_um, y_um` (electrodes numbered 1 … n, in any order, each once) or a
    probeinterface file (see `from_probe_file`).

    Example:
        >>> import tempfile, pathlib
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "map.csv"
        >>> _ = f.write_text("electrode,x_um,y_um\n2,30,0\n1,0,0\n")
        >>> from_map_file(f).tolist()
        [[0.0, 0.0], [30.0, 0.0]]
    """
    import csv

    path = os.fspath(path)
    if not path.lower().endswith(".csv"):
        return from_probe_file(path)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or not {"electrode", "x_um", "y_um"} <= set(rows[0]):
        raise ValueError(f"{path}: an electrode map needs the columns electrode, x_um, y_um")
    try:
        table = {int(r["electrode"]): (float(r["x_um"]), float(r["y_um"])) for r in rows}
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: an electrode map row is not numbers: {error}") from None
    if len(table) != len(rows) or sorted(table) != list(range(1, len(rows) + 1)):
        raise ValueError(f"{path}: electrodes must be numbered 1 … {len(rows)}, each once")
    return np.array([table[e] for e in range(1, len(rows) + 1)], np.float64)
