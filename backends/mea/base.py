"""The MEA interface: give me a Recording; where the source can, stimulate electrodes with a
pattern and give me the response."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from ..base import Backend, BackendOptions, Capabilities, Unavailability
from ..errors import CapabilityError, SubstratesError


@dataclass(frozen=True)
class MEACapabilities(Capabilities):
    """channels; sampling_hz; duration_s (None: generated on request); stimulate: whether
    `stimulate` can play a pattern."""

    channels: int
    sampling_hz: float
    duration_s: float | None
    stimulate: bool


class MEABackend(Backend):
    """A source of multi-electrode recordings (datasets.mea.recording.Recording)."""

    substrate: ClassVar[str] = "mea"
    extra: ClassVar[str] = "mea"

    @abstractmethod
    def recording(self) -> Any:
        """The Recording this source holds (traces read lazily)."""

    def stimulate(self, pattern: Any) -> Any:
        """The response to a stimulation pattern; recorded files cannot."""
        raise CapabilityError(f"{self.name} plays back a recording; it cannot stimulate")


class FileOptions(BackendOptions):
    """path: the recording file (a config may leave it out and a run give it)."""

    path: str | None = None


class RecordedFile(MEABackend):
    """A recording read from `options.path`; reading errors name the file and field."""

    tier: ClassVar = "hardware"
    options: FileOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        path = getattr(options, "path", None)
        if problem is None and path is None:
            return Unavailability("no-device", "no recording given: set options.path")
        if problem is None and not Path(path).is_file():
            return Unavailability("no-device", f"no recording at {path}")
        return problem

    @abstractmethod
    def _read(self) -> Any: ...

    @cached_property
    def _recording(self) -> Any:
        from substrates.datasets.mea.recording import RecordingError

        try:
            return self._read()
        except RecordingError as error:
            raise SubstratesError(str(error)) from None

    def recording(self) -> Any:
        return self._recording

    @cached_property
    def capabilities(self) -> MEACapabilities:
        r = self._recording
        return MEACapabilities(r.channels, r.sampling_hz, r.duration_s, False)
