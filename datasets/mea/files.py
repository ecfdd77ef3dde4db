"""The MEA substrate's recording formats: FORMATS, the registry of its readers
(datasets/formats.py). Each `mea.*` file backend reads its format through it.

>>> from substrates.datasets.mea.files import FORMATS
>>> [fmt.name for fmt in FORMATS], FORMATS.of("data000.bin").title
(['nwb', 'litke', 'maxwell', 'neo'], 'Litke raw')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..formats import FOLDER, Format, Formats
from .maxwell import read_maxwell
from .neo_files import read_neo
from .nwb import read_nwb
from .recording import Recording, RecordingError

LITKE_512_IDS = range(500, 1500)
"""Array ids of the 512-electrode 60 µm board (bin2py's convention; 504 in practice)."""
LITKE_519_IDS = range(1500, 2500)
"""Array ids of the 519-electrode 30 µm board (1501; 1601 for its 120 µm variant)."""


def _read_litke(
    path: Path,
    gain_uv: float,
    geometry: str | None = None,
    electrode_map: str | os.PathLike[str] | None = None,
) -> Recording:
    """A Litke .bin file or dataset folder; positions from `electrode_map` (a CSV of
    electrode, x_um, y_um or a probeinterface file), else the lattice `geometry`
    (litke_512_60um or litke_512_30um), else the header's array id."""
    from .litke_bin import read_dataset_header, read_litke

    header = read_dataset_header(path)
    return read_litke(path, litke_positions(path, header, geometry, electrode_map), gain_uv)[0]


def litke_positions(
    path: Path,
    header: Any,
    geometry: str | None = None,
    electrode_map: str | os.PathLike[str] | None = None,
) -> np.ndarray:
    """Electrode positions (µm) of a Litke recording: the map file, the chosen lattice, or
    the lattice the header's array id names (the 512-electrode board at 60 µm)."""
    from .geometry import from_map_file, litke_512

    if electrode_map is not None:
        try:
            return from_map_file(electrode_map)
        except (OSError, ValueError) as error:
            raise RecordingError(f"electrode_map: {error}") from None
    if geometry is not None:
        return litke_512(60.0 if geometry.endswith("60um") else 30.0)
    electrodes = header.electrodes - 1
    if header.array_id in LITKE_512_IDS and electrodes == 512:
        return litke_512(60.0)
    board = (
        "the 519-electrode 30 µm board"
        if header.array_id in LITKE_519_IDS
        else "an array without a built-in lattice"
    )
    raise RecordingError(
        f"{path}: array id {header.array_id}, {electrodes} electrodes: "
        f"{board}; set options.electrode_map (a CSV of electrode, x_um, y_um or a "
        "probeinterface file)"
    )


FORMATS: Formats[Recording] = Formats(
    "recording",
    [
        Format("nwb", "NWB", (".nwb",), read_nwb),
        Format("litke", "Litke raw", (".bin", FOLDER), _read_litke),
        Format("maxwell", "MaxWell MaxOne/MaxTwo HDF5", (".raw.h5",), read_maxwell),
        Format("neo", "python-neo (any format its rawio classes read)", (), read_neo),
    ],
    error=RecordingError,
)
"""The recording formats: nwb (options: series), litke (gain_uv, geometry, electrode_map)
and neo (chosen by name only: neo reads dozens of endings; options as read_neo's)."""
