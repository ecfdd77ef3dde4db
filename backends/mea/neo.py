"""`mea.neo`: any recording format neo reads (datasets.mea.neo_files), on a grid geometry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from .base import FileOptions, RecordedFile

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording


class NeoOptions(FileOptions):
    """path: a file, or the folder of a folder format (Open Ephys binary: rawio
    OpenEphysBinaryRawIO). rawio: a neo.rawio class name (None: neo picks by the file
    name); rawio_options: its other arguments; units: the samples' units after neo's gain
    where the file says none;
    stream: the signal stream; rows × columns at pitch_um: the electrode grid, in channel
    order, or probe: a probeinterface file with the electrode positions instead, or
    positions_from_file: the positions the file itself holds (MaxWell; 3Brain at
    pitch_um where it is given, else at its plate's pitch)."""

    rawio: str | None = None
    rawio_options: dict[str, Any] = Field(default_factory=dict)
    units: Literal["uV", "mV", "V"] | None = None
    stream: int = Field(0, ge=0)
    rows: int = Field(1, ge=1)
    columns: int = Field(1, ge=1)
    pitch_um: float = Field(17.5, gt=0)
    probe: str | None = None
    positions_from_file: bool = False

    @model_validator(mode="after")
    def _one_geometry(self) -> NeoOptions:
        if self.positions_from_file and self.probe is not None:
            raise ValueError("give probe or positions_from_file, not both")
        return self


class NeoBackend(RecordedFile):
    name: ClassVar[str] = "mea.neo"
    Options: ClassVar = NeoOptions
    requires: ClassVar = ("neo",)

    accepts_folders: ClassVar[bool] = True

    options: NeoOptions

    def _read(self) -> Recording:
        from ...datasets.mea.files import FORMATS
        from ...datasets.mea.geometry import from_probe_file, grid
        from ...datasets.mea.recording import RecordingError

        o = self.options
        geometry = None  # positions_from_file: read_neo takes them from the file
        try:
            if o.probe is not None:
                geometry = from_probe_file(o.probe)
            elif not o.positions_from_file:
                geometry = grid(o.rows, o.columns, o.pitch_um)
        except (OSError, ValueError) as error:
            raise RecordingError(f"options.probe: {error}") from None
        pitch = o.pitch_um if "pitch_um" in o.model_fields_set else None
        return FORMATS.read(
            self.path,
            format="neo",
            positions_um=geometry,
            rawio=o.rawio,
            options=o.rawio_options,
            units=o.units,
            stream=o.stream,
            pitch_um=pitch,
        )
