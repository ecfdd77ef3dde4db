"""The events interface: a stream of event packets of one sensor size; simulators also turn
frames into events.

Public methods validate the request, then call the implementation's `_packets` (and, for
simulators, `_simulate`); a backend implements only those and `capabilities`.
"""

from __future__ import annotations

import warnings
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...errors import CapabilityError
from ..base import Backend, Capabilities

if TYPE_CHECKING:
    from ...datasets.events.events import Events


@dataclass(frozen=True)
class EventsCapabilities(Capabilities):
    """width, height: sensor pixels; live: a camera (no end); duration_us: what a recording
    holds (None: live, or generated on request)."""

    width: int
    height: int
    live: bool
    duration_us: int | None


class EventsBackend(Backend):
    """A source of events (datasets.events.events.Events)."""

    substrate: ClassVar[str] = "events"
    extra: ClassVar[str] = "events"

    @property
    @abstractmethod
    def capabilities(self) -> EventsCapabilities: ...

    def validate(self, window_us: int, limit_us: int | None = None) -> None:
        """Raise CapabilityError for a window that is not a positive number of µs, a limit
        that is not positive, or no limit on a live camera (which never ends)."""
        if window_us <= 0:
            raise CapabilityError(f"packet window must be positive, got {window_us} µs")
        if limit_us is not None and limit_us <= 0:
            raise CapabilityError(f"the time limit must be positive, got {limit_us} µs")
        if limit_us is None and self.capabilities.live:
            raise CapabilityError(f"{self.name} streams without end: give a limit in µs")

    def packets(self, window_us: int, limit_us: int | None = None) -> Iterator[Events]:
        """Consecutive Events packets of `window_us` µs each, for `limit_us` µs (None: all a
        recording holds; a live camera needs a limit). The request is checked now, before
        the first packet is read."""
        self.validate(window_us, limit_us)
        return self._packets(window_us, limit_us)

    @abstractmethod
    def _packets(self, window_us: int, limit_us: int | None) -> Iterator[Events]: ...


class FrameRangeWarning(UserWarning):
    """Frames whose brightest pixel is at most 1 DN: most likely normalised to [0, 1]."""


class EventSimulatorBackend(EventsBackend):
    """A simulator: frames (T, H, W) in DN with their times in µs become events."""

    @property
    def intensity_scale(self) -> float:
        """DN per unit of the frames given to `simulate` (1: they are in DN)."""
        return 1.0

    def validate_frames(self, frames: np.ndarray, times_us: np.ndarray) -> None:
        """Raise CapabilityError unless frames are (T ≥ 2, H, W) finite intensities ≥ 0 DN
        with one strictly increasing time (µs) per frame."""
        frames, times_us = np.asarray(frames), np.asarray(times_us)
        if frames.ndim != 3 or len(frames) < 2:
            raise CapabilityError(f"frames must be (T ≥ 2, H, W), got shape {frames.shape}")
        if times_us.shape != (len(frames),) or np.any(np.diff(times_us) <= 0):
            raise CapabilityError("frame times must be one per frame and strictly increasing")
        if frames.min() < 0 or not np.isfinite(frames).all():
            raise CapabilityError("frame intensities must be finite and ≥ 0 DN")

    def simulate(self, frames: np.ndarray, times_us: np.ndarray) -> Events:
        """Events of the sensor watching `frames` (T ≥ 2, times strictly increasing), in DN
        times `intensity_scale`. Frames whose brightest pixel is then at most 1 DN give a
        FrameRangeWarning: the pixel model is linear below 20 DN (0.15 log units per DN),
        so frames normalised to [0, 1] change by less than a contrast threshold and fire
        few events or none."""
        self.validate_frames(frames, times_us)
        scaled = np.asarray(frames, np.float64) * self.intensity_scale
        brightest = float(scaled.max())
        if 0 < brightest <= 1.0:
            warnings.warn(
                f"{self.name}: the frames' brightest pixel is {brightest:g} DN — frames "
                "normalised to [0, 1]? The pixel model reads 0–255 DN and fires few or no "
                "events at this contrast: pass frames × 255, or set the option "
                "intensity_scale: 255",
                FrameRangeWarning,
                stacklevel=2,
            )
        return self._simulate(scaled, np.asarray(times_us, np.float64))

    @abstractmethod
    def _simulate(self, frames: np.ndarray, times_us: np.ndarray) -> Events: ...
