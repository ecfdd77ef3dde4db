"""`mea.neo`: any recording format neo reads (datasets.mea.neo_files), on a grid geometry."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import FileOptions, RecordedFile


class NeoOptions(FileOptions):
    """path: a file, or the folder of a folder format (Open Ephys binary: rawio
    OpenEphysBinaryRawIO). rawio: a neo.rawio class name (None: neo picks by the file
    name); rawio_options: its other arguments; units: the samples' units after neo's gain
    where the file says none;
    stream: the signal stream; rows × columns at pitch_um: the electrode grid, in channel
    order, or probe: a probeinterface file with the electrode positions instead."""

    rawio: str | None = None
    rawio_options: dict[str, Any] = Field(default_factory=dict)
    units: Literal["uV", "mV", "V"] | None = None
    stream: int = Field(0, ge=0)
    rows: int = Field(1, ge=1)
    columns: int = Field(1, ge=1)
    pitch_um: float = Field(17.5, gt=0)
    probe: str | None = None


class NeoBackend(RecordedFile):
    name: ClassVar[str] = "mea.neo"
    Options: ClassVar = NeoOptions
    requires: ClassVar = ("neo",)

    accepts_folders: ClassVar[bool] = True

    options: NeoOptions

    def _read(self) -> Any:
        from ...datasets.mea.geometry import from_probe_file, grid
        from ...datasets.mea.neo_files import read_neo
        from ...datasets.mea.recording import RecordingError

        o = self.options
        try:
            geometry = grid(o.rows, o.columns, o.pitch_um) if o.probe is None else (
                from_probe_file(o.probe))  # fmt: skip
        except (OSError, ValueError) as error:
            raise RecordingError(f"options.probe: {error}") from None
        return read_neo(o.path, geometry, o.rawio, o.rawio_options, o.units, o.stream)
