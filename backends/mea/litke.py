"""`mea.litke`: a Litke raw `.bin` recording or multi-file dataset (datasets.mea.litke_bin)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from ..base import BackendOptions, Unavailability
from .base import FileOptions, RecordedFile

LITKE_512_IDS = range(500, 1500)
"""Array ids of the 512-electrode 60 µm board (bin2py's convention; 504 in practice)."""
LITKE_519_IDS = range(1500, 2500)
"""Array ids of the 519-electrode 30 µm board (1501; 1601 for its 120 µm variant)."""


class LitkeOptions(FileOptions):
    """path: a .bin file, or a dataset's folder (or its first file) of several.
    geometry: the Litke 512-electrode lattice at 60 or 30 µm pitch; None: from the header's
    array id (the 512 board at 60 µm). electrode_map: the lab's map instead, a CSV of
    `electrode, x_um, y_um` or a probeinterface file; the 519-electrode board needs one.
    gain_uv: µV per ADC unit (the file does not store it)."""

    geometry: Literal["litke_512_60um", "litke_512_30um"] | None = None
    electrode_map: str | None = None
    gain_uv: float | None = Field(None, gt=0)


class LitkeBackend(RecordedFile):
    name: ClassVar[str] = "mea.litke"
    Options: ClassVar = LitkeOptions
    requires: ClassVar = ("numba",)

    accepts_folders: ClassVar[bool] = True
    options: LitkeOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is None and getattr(options, "gain_uv", None) is None:
            return Unavailability(
                "no-device",
                "unknown units: a Litke .bin stores no µV scale; "
                "set options.gain_uv (µV per ADC unit)",
            )
        return problem

    def _read(self) -> Any:
        from ...datasets.mea.litke_bin import read_dataset_header, read_litke

        path, gain_uv = self.options.path, self.options.gain_uv
        assert path is not None and gain_uv is not None  # unavailability refused them
        header = read_dataset_header(path)
        return read_litke(path, self._positions(header), gain_uv)[0]

    def _positions(self, header: Any) -> np.ndarray:
        """Electrode positions (µm): the map file, the chosen lattice, or the header's."""
        from ...datasets.mea.geometry import from_map_file, litke_512
        from ...datasets.mea.recording import RecordingError

        if self.options.electrode_map is not None:
            try:
                return from_map_file(self.options.electrode_map)
            except (OSError, ValueError) as error:
                raise RecordingError(f"electrode_map: {error}") from None
        if self.options.geometry is not None:
            return litke_512(60.0 if self.options.geometry.endswith("60um") else 30.0)
        electrodes = header.electrodes - 1
        if header.array_id in LITKE_512_IDS and electrodes == 512:
            return litke_512(60.0)
        board = (
            "the 519-electrode 30 µm board"
            if header.array_id in LITKE_519_IDS
            else "an array without a built-in lattice"
        )
        raise RecordingError(
            f"{self.options.path}: array id {header.array_id}, {electrodes} electrodes: "
            f"{board}; set options.electrode_map (a CSV of electrode, x_um, y_um or a "
            "probeinterface file)"
        )
