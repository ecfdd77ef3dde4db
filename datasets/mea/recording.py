"""A multi-electrode recording: traces (channels × samples) read lazily in chunks, with the
gain to µV, the sampling rate, electrode ids and positions (µm), and stimulation events."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputFileError


class RecordingError(InputFileError):
    """A recording or recording file that breaks the rules; the message says where."""


@dataclass(frozen=True)
class Stimulation:
    """Stimulation events: time (s), electrode(s) (ids), amplitude (µA), pulse shape name,
    and each electrode's share of the amplitude (weights; None: 1 on every electrode, so
    (1, −1) is a bipolar pair)."""

    time_s: np.ndarray
    electrodes: tuple[tuple[int, ...], ...]
    current_ua: np.ndarray
    shape: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...] | None = None

    def __post_init__(self) -> None:
        sizes = {len(self.time_s), len(self.electrodes), len(self.current_ua), len(self.shape)}
        if self.weights is not None:
            sizes.add(len(self.weights))
            if any(len(w) != len(e) for w, e in zip(self.weights, self.electrodes, strict=True)):
                raise RecordingError("stimulation: a weight for every electrode of an event")
        if len(sizes) != 1:
            raise RecordingError(
                "stimulation: times, electrodes, currents, shapes and weights differ in length"
            )

    @classmethod
    def none(cls) -> Stimulation:
        return cls(np.zeros(0), (), np.zeros(0), ())

    def __len__(self) -> int:
        return len(self.time_s)

    def currents(self, event: int) -> tuple[float, ...]:
        """Event `event`'s current on each of its electrodes (µA)."""
        weights = (
            self.weights[event]
            if self.weights is not None
            else (1.0,) * len(self.electrodes[event])
        )
        return tuple(float(self.current_ua[event]) * w for w in weights)


class TraceSource(ABC):
    """Where the samples live: returns int16 or float32 blocks (samples × channels)."""

    @abstractmethod
    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray: ...


class ArraySource(TraceSource):
    """Samples held in memory: (samples, channels), int16 or float32."""

    def __init__(self, samples: np.ndarray) -> None:
        self.samples = samples

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        return self.samples[start:end][:, channels]


MIN_SAMPLING_HZ = 1_000.0
MAX_SAMPLING_HZ = 1_000_000.0
"""Sampling rates an extracellular recording can have: spikes last about a millisecond."""


def check_sampling_hz(hz: float, where: str) -> float:
    """`hz`, or a RecordingError naming `where` when no MEA samples at that rate (a rate
    in kHz read as Hz, or a decimated file)."""
    if not MIN_SAMPLING_HZ <= hz <= MAX_SAMPLING_HZ:
        raise RecordingError(
            f"{where}: sampling rate {hz:g} Hz; spikes need {MIN_SAMPLING_HZ:g} Hz to "
            f"{MAX_SAMPLING_HZ:g} Hz (a rate in kHz stored as Hz?)"
        )
    return hz


@dataclass(frozen=True)
class Recording:
    """samples: per channel; sampling_hz; gain_uv: µV per stored unit; electrode_ids and
    positions_um (channels × 2) in channel order; stimulation events; offset_uv: µV added
    to each channel after the gain (None: none), as NWB's `offset` and neo's per-channel
    offsets give it."""

    source: TraceSource
    samples: int
    sampling_hz: float
    gain_uv: float
    electrode_ids: np.ndarray
    positions_um: np.ndarray
    stimulation: Stimulation = field(default_factory=Stimulation.none)
    offset_uv: np.ndarray | None = None

    def __post_init__(self) -> None:
        if len(self.electrode_ids) != len(self.positions_um):
            raise RecordingError(
                f"{len(self.electrode_ids)} channels but "
                f"{len(self.positions_um)} electrode positions"
            )
        if self.offset_uv is not None and np.shape(self.offset_uv) != (len(self.electrode_ids),):
            raise RecordingError(
                f"{len(self.electrode_ids)} channels but {np.size(self.offset_uv)} offsets"
            )

    @property
    def channels(self) -> int:
        return len(self.electrode_ids)

    @property
    def duration_s(self) -> float:
        return self.samples / self.sampling_hz

    def get_traces(
        self,
        start: int = 0,
        end: int | None = None,
        channels: np.ndarray | None = None,
        microvolts: bool = True,
    ) -> np.ndarray:
        """Samples [start, end) of `channels` (indices; all by default): (samples, channels),
        in µV (float32: stored × gain_uv + offset_uv), or as stored."""
        end = self.samples if end is None else end
        if not 0 <= start <= end <= self.samples:
            raise RecordingError(f"samples {start}..{end} outside 0..{self.samples}")
        index = np.arange(self.channels) if channels is None else np.asarray(channels)
        if index.size and (index.min() < 0 or index.max() >= self.channels):
            raise RecordingError(f"channels outside 0..{self.channels - 1}")
        block = self.source.block(start, end, index)
        if not microvolts:
            return block
        scaled = block.astype(np.float32) * np.float32(self.gain_uv)
        if self.offset_uv is not None:
            scaled += np.asarray(self.offset_uv, np.float32)[index]
        return scaled

    def chunks(self, size: int) -> range:
        """Chunk starts for reading the whole recording `size` samples at a time."""
        return range(0, self.samples, size)
