"""The MEA interface: give me a Recording; where the source can, stimulate electrodes with a
pattern and give me the response; where it simulates cells, a CellModel to infer with."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..base import Backend, BackendOptions, Capabilities, Unavailability
from ..errors import CapabilityError, SubstratesError


@dataclass(frozen=True)
class MEACapabilities(Capabilities):
    """channels; sampling_hz; duration_s (None: generated on request); stimulate: whether
    `stimulate` can play a pattern; models_cells: whether `cell_model` gives a CellModel."""

    channels: int
    sampling_hz: float
    duration_s: float | None
    stimulate: bool
    models_cells: bool = False


@dataclass(frozen=True)
class Parameter:
    """One inferable cell parameter: name (its unit in the suffix), uniform prior box;
    periodic: low and high are the same point (an angle)."""

    name: str
    low: float
    high: float
    description: str
    periodic: bool = False

    def inside(self, value: Any) -> Any:
        """value wrapped into the box (periodic) or clipped to it."""
        if self.periodic:
            return self.low + np.mod(np.asarray(value) - self.low, self.high - self.low)
        return np.clip(value, self.low, self.high)

    def distance(self, a: Any, b: Any) -> Any:
        """|a − b|, the short way round for a periodic parameter."""
        gap = np.abs(np.asarray(a) - np.asarray(b))
        return np.minimum(gap, (self.high - self.low) - gap) if self.periodic else gap


class CellModel(ABC):
    """A biophysical cell over an electrode array, as a function of its parameters θ
    (rows ordered as `parameters`): what a fit simulates with. Currents in µA, electrode
    potentials in µV; electrodes are channel indices of the array it was made for."""

    parameters: tuple[Parameter, ...]
    sampling_hz: float
    template_samples: int
    max_current_ua: float

    @abstractmethod
    def templates(self, theta: Any) -> Any:
        """(B, channels, samples) µV: each parameter set's spontaneous spike."""

    @abstractmethod
    def template_jacobian(self, theta: Any) -> tuple[Any, Any]:
        """One parameter set's template (channels, samples) µV and its derivatives
        (channels, samples, parameters) with respect to θ."""

    @abstractmethod
    def thresholds(self, theta: Any, electrodes: Any, shape: str) -> Any:
        """(B, E) µA: the least single-electrode amplitude that makes each cell spike."""

    @abstractmethod
    def spikes(self, theta: Any, currents_ua: Any, shape: str) -> Any:
        """(B,) bool: whether each cell spikes for its electrode currents (B, channels)."""


class MEABackend(Backend):
    """A source of multi-electrode recordings (datasets.mea.recording.Recording)."""

    substrate: ClassVar[str] = "mea"
    extra: ClassVar[str] = "mea"

    @abstractmethod
    def recording(self) -> Any:
        """The Recording this source holds (traces read lazily)."""

    def stimulate(self, stimulation: Any) -> Any:
        """The Recording of the response to `stimulation` (datasets.mea.recording
        .Stimulation: pulse times, electrodes, currents); recorded files cannot."""
        raise CapabilityError(f"{self.name} plays back a recording; it cannot stimulate")

    def cell_model(self, positions_um: Any) -> CellModel:
        """A CellModel over electrodes at `positions_um` (channels, 2); only simulators."""
        raise CapabilityError(f"{self.name} plays back a recording; it simulates no cells")


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
        from ...datasets.mea.recording import RecordingError

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
