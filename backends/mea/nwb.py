"""`mea.nwb`: an NWB ElectricalSeries with its electrodes table (datasets.mea.nwb)."""

from __future__ import annotations

from typing import Any, ClassVar

from .base import FileOptions, RecordedFile


class NWBOptions(FileOptions):
    """series: the ElectricalSeries in /acquisition (None: the only one)."""

    series: str | None = None


class NWBBackend(RecordedFile):
    name: ClassVar[str] = "mea.nwb"
    Options: ClassVar = NWBOptions
    requires: ClassVar = ("pynwb",)

    options: NWBOptions

    def _read(self) -> Any:
        from ...datasets.mea.nwb import read_nwb

        return read_nwb(self.path, self.options.series)
