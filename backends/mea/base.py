"""The MEA interface: give me a Recording; where the source can, stimulate electrodes with a
pattern and give me the response; where it simulates cells, a CellModel to infer with."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import numpy.typing as npt

from ...errors import CapabilityError
from ..base import Backend, BackendOptions, Capabilities, Unavailability

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording, Stimulation


@dataclass(frozen=True)
class MEACapabilities(Capabilities):
    """channels; sampling_hz; duration_s (None: generated on request); stimulate: whether
    `stimulate` can play a pattern; models_cells: whether `cell_model` gives a CellModel;
    max_current_ua: the largest current per electrode a stimulation may ask for (µA)."""

    channels: int
    sampling_hz: float
    duration_s: float | None
    stimulate: bool
    models_cells: bool = False
    max_current_ua: float | None = None


@dataclass(frozen=True)
class Parameter:
    """One inferable cell parameter: name (its unit in the suffix), uniform prior box;
    periodic: low and high are the same point (an angle)."""

    name: str
    low: float
    high: float
    description: str
    periodic: bool = False

    def inside(self, value: npt.ArrayLike) -> npt.NDArray[np.float64] | np.float64:
        """value wrapped into the box (periodic) or clipped to it (same shape; a number
        for a number)."""
        if self.periodic:
            return self.low + np.mod(np.asarray(value) - self.low, self.high - self.low)
        return np.clip(value, self.low, self.high)

    def distance(self, a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64] | np.float64:
        """|a − b|, the short way round for a periodic parameter."""
        gap = np.abs(np.asarray(a) - np.asarray(b))
        return np.minimum(gap, (self.high - self.low) - gap) if self.periodic else gap


class CellModel(ABC):
    """A biophysical cell over an electrode array, as a function of its parameters θ
    (rows ordered as `parameters`): what a fit simulates with. Currents in µA, electrode
    potentials in µV; electrodes are channel indices of the array it was made for.
    onset_ms: how long after a template's first sample the pulse that starts the spike
    comes (a GroundTruth's spike times are those pulses)."""

    parameters: tuple[Parameter, ...]
    sampling_hz: float
    template_samples: int
    max_current_ua: float
    onset_ms: float

    @abstractmethod
    def templates(self, theta: np.ndarray) -> np.ndarray:
        """(B, channels, samples) µV: each parameter set's spontaneous spike."""

    @abstractmethod
    def template_jacobian(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each parameter set's template (B, channels, samples) µV and its derivatives
        (B, channels, samples, parameters) with respect to θ (B, parameters)."""

    @abstractmethod
    def thresholds(self, theta: np.ndarray, electrodes: np.ndarray, shape: str) -> np.ndarray:
        """(B, E) µA: the least single-electrode amplitude that makes each cell spike."""

    @abstractmethod
    def spikes(self, theta: np.ndarray, currents_ua: np.ndarray, shape: str) -> np.ndarray:
        """(B,) bool: whether each cell spikes for its electrode currents (B, channels)."""

    def spikes_of(self, theta: np.ndarray, currents_ua: np.ndarray, shape: str) -> np.ndarray:
        """(E,) bool: whether the one cell θ (parameters,) spikes for each event's
        electrode currents (E, channels). A model may leave out events too weak to reach
        the cell (the simulator does: backends/mea/locality.py); by default, every one."""
        return self.spikes(
            np.repeat(np.asarray(theta)[None], len(currents_ua), 0), currents_ua, shape
        )


@dataclass(frozen=True)
class GroundTruth:
    """What a simulator hid in a session: the cell (parameter name → value), the times of
    the somatic pulses that start its spontaneous spikes (s), and whether each stimulation
    event of the recording made it spike; `others`: the same for every other cell under
    the array (none by default)."""

    parameters: dict[str, float]
    spike_times_s: np.ndarray
    evoked: np.ndarray
    others: tuple[GroundTruth, ...] = ()

    @property
    def cells(self) -> tuple[GroundTruth, ...]:
        """Every cell's truth, this one first (each without `others`)."""
        return (replace(self, others=()), *self.others)


class MEABackend(Backend):
    """A source of multi-electrode recordings. Public methods validate, then call the
    implementation's `_recording` (and, for simulators, `_stimulate`, `_cell_model`)."""

    substrate: ClassVar[str] = "mea"
    extra: ClassVar[str] = "mea"

    @property
    @abstractmethod
    def capabilities(self) -> MEACapabilities: ...

    def recording(self) -> Recording:
        """The Recording this source holds (traces read lazily)."""
        return self._recording()

    def validate(self, stimulation: Stimulation | None) -> None:
        """Raise CapabilityError unless this source can play `stimulation`: a simulator,
        electrodes of the array, currents within ±capabilities.max_current_ua (µA)."""
        caps = self.capabilities
        if not caps.stimulate:
            raise CapabilityError(f"{self.name} plays back a recording; it cannot stimulate")
        if stimulation is None:
            raise CapabilityError("no stimulation given")
        for k in range(len(stimulation)):
            for electrode, current in zip(
                stimulation.electrodes[k], stimulation.currents(k), strict=True
            ):
                if not 0 <= electrode < caps.channels:
                    raise CapabilityError(f"stimulation event {k}: no electrode {electrode}")
                if caps.max_current_ua is not None and abs(current) > caps.max_current_ua:
                    raise CapabilityError(
                        f"stimulation event {k}: {current:g} µA on electrode {electrode} is "
                        f"outside the model's ±{caps.max_current_ua:g} µA"
                    )

    def validate_positions(self, positions_um: np.ndarray) -> None:
        """Raise CapabilityError unless this source models cells and `positions_um` is a
        finite (channels, 2 or 3) array of electrode positions (µm)."""
        if not self.capabilities.models_cells:
            raise CapabilityError(f"{self.name} plays back a recording; it simulates no cells")
        positions = np.asarray(positions_um, dtype=float)
        if positions.ndim != 2 or positions.shape[1] not in (2, 3) or len(positions) == 0:
            raise CapabilityError(
                f"electrode positions must be (channels, 2), got {positions.shape}"
            )
        if not np.isfinite(positions).all():
            raise CapabilityError("electrode positions must be finite (µm)")

    def stimulate(self, stimulation: Stimulation) -> Recording:
        """The Recording of the response to `stimulation` (pulse times, electrodes,
        currents); only simulators can."""
        self.validate(stimulation)
        return self._stimulate(stimulation)

    def cell_model(self, positions_um: np.ndarray) -> CellModel:
        """A CellModel over electrodes at `positions_um` (channels, 2); only simulators."""
        self.validate_positions(positions_um)
        return self._cell_model(np.asarray(positions_um, dtype=float))

    @abstractmethod
    def _recording(self) -> Recording: ...

    def _stimulate(self, stimulation: Stimulation) -> Recording:
        raise CapabilityError(f"{self.name} cannot stimulate")  # validate refuses first

    def _cell_model(self, positions_um: np.ndarray) -> CellModel:
        raise CapabilityError(f"{self.name} simulates no cells")  # validate refuses first


class MEASimulatorBackend(MEABackend):
    """A simulated array: it stimulates, gives the CellModel a fit simulates with, and
    tells what it hid (the adapters score a fit against `ground_truth`)."""

    progress: Callable[[int, int], None] | None = None
    """Told (cells done, cells) as a session is simulated, when set (a run's bar)."""

    def ground_truth(self) -> GroundTruth:
        """The hidden cell, its spontaneous spike times and which pulses evoked a spike."""
        return self._ground_truth()

    @abstractmethod
    def _stimulate(self, stimulation: Stimulation) -> Recording: ...

    @abstractmethod
    def _cell_model(self, positions_um: np.ndarray) -> CellModel: ...

    @abstractmethod
    def _ground_truth(self) -> GroundTruth: ...


class FileOptions(BackendOptions):
    """path: the recording file (a config may leave it out and a run give it)."""

    path: str | None = None


class RecordedFile(MEABackend):
    """A recording read from `options.path`; reading errors name the file and field."""

    tier: ClassVar = "hardware"
    accepts_folders: ClassVar[bool] = False
    """Whether a recording may be a folder of files (a multi-file dataset)."""
    options: FileOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        path = getattr(options, "path", None)
        if problem is not None:
            return problem
        if path is None:
            return Unavailability("no-device", "no recording given: set options.path")
        if not (Path(path).is_file() or (cls.accepts_folders and Path(path).is_dir())):
            return Unavailability("no-device", f"no recording at {path}")
        return None

    @property
    def path(self) -> Path:
        """The recording's file or folder (never None: a backend without one cannot be
        made, see `unavailability`)."""
        assert self.options.path is not None
        return Path(self.options.path)

    @abstractmethod
    def _read(self) -> Recording: ...

    @cached_property
    def _read_once(self) -> Recording:
        return self._read()

    def _recording(self) -> Recording:
        return self._read_once

    @cached_property
    def capabilities(self) -> MEACapabilities:
        r = self._read_once
        return MEACapabilities(r.channels, r.sampling_hz, r.duration_s, False)
