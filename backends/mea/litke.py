"""`mea.litke`: a Litke raw `.bin` recording or multi-file dataset (datasets.mea.litke_bin)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from ..base import BackendOptions, Unavailability
from .base import FileOptions, RecordedFile

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording


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

    def _read(self) -> Recording:
        from ...datasets.mea.files import FORMATS

        o = self.options
        return FORMATS.read(
            self.path,
            format="litke",
            gain_uv=o.gain_uv,
            geometry=o.geometry,
            electrode_map=o.electrode_map,
        )
