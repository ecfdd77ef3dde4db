"""`mea.litke`: a Litke raw `.bin` recording (datasets.mea.litke_bin)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ..base import BackendOptions, Unavailability
from .base import FileOptions, RecordedFile


class LitkeOptions(FileOptions):
    """geometry: the array (Litke 512 electrodes at 60 or 30 µm pitch); gain_uv: µV per ADC
    unit (the file does not store it)."""

    geometry: Literal["litke_512_60um", "litke_512_30um"] = "litke_512_60um"
    gain_uv: float | None = Field(None, gt=0)


class LitkeBackend(RecordedFile):
    name: ClassVar[str] = "mea.litke"
    Options: ClassVar = LitkeOptions
    requires: ClassVar = ("numba",)

    options: LitkeOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is None and getattr(options, "gain_uv", None) is None:
            return Unavailability("no-device", "unknown units: a Litke .bin stores no µV scale; "
                                  "set options.gain_uv (µV per ADC unit)")  # fmt: skip
        return problem

    def _read(self) -> Any:
        from ...datasets.mea.geometry import litke_512
        from ...datasets.mea.litke_bin import read_litke

        pitch = 60.0 if self.options.geometry.endswith("60um") else 30.0
        return read_litke(self.options.path, litke_512(pitch), self.options.gain_uv)[0]
