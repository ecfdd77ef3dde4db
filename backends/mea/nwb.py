"""`mea.nwb`: an NWB ElectricalSeries with its electrodes table (datasets.mea.nwb)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .base import FileOptions, RecordedFile

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording


class NWBOptions(FileOptions):
    """series: the ElectricalSeries in /acquisition (None: the only one)."""

    series: str | None = None


class NWBBackend(RecordedFile):
    name: ClassVar[str] = "mea.nwb"
    Options: ClassVar = NWBOptions
    requires: ClassVar = ("pynwb",)

    options: NWBOptions

    def _read(self) -> Recording:
        from ...datasets.mea.files import FORMATS

        return FORMATS.read(self.path, format="nwb", series=self.options.series)
