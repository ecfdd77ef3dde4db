"""`mea.maxwell`: a MaxWell MaxOne or MaxTwo HDF5 recording (datasets.mea.maxwell)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from .base import FileOptions, RecordedFile

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording


class MaxWellOptions(FileOptions):
    """path: a `.raw.h5` file. well: the well to read (MaxTwo has six; a MaxOne file of
    the later layout has well000); recording: the well's recording (None: its only one).
    Positions and electrode ids come from the file's `mapping` table."""

    well: str = "well000"
    recording: str | None = None


class MaxWellBackend(RecordedFile):
    name: ClassVar[str] = "mea.maxwell"
    Options: ClassVar = MaxWellOptions
    requires: ClassVar = ("h5py",)

    options: MaxWellOptions

    def _read(self) -> Recording:
        from ...datasets.mea.files import FORMATS

        o = self.options
        return FORMATS.read(self.path, format="maxwell", well=o.well, recording=o.recording)
