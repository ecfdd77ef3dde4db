"""The events interface: a stream of event packets of one sensor size; simulators also turn
frames into events."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..base import Backend, Capabilities
from ..errors import CapabilityError


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

    @abstractmethod
    def packets(self, window_us: int, limit_us: int | None = None) -> Iterator[Any]:
        """Consecutive Events packets of `window_us` µs each, for `limit_us` µs (None: all a
        recording holds; a live camera needs a limit)."""

    def validate(self, window_us: int, limit_us: int | None) -> None:
        if window_us <= 0:
            raise CapabilityError(f"packet window must be positive, got {window_us} µs")
        if limit_us is None and self.capabilities.live:
            raise CapabilityError(f"{self.name} streams without end: give a limit in µs")


class EventSimulatorBackend(EventsBackend):
    """A simulator: frames (T, H, W) in DN with their times in µs become events."""

    @abstractmethod
    def simulate(self, frames: np.ndarray, times_us: np.ndarray) -> Any:
        """Events of the sensor watching `frames` (T ≥ 2, times strictly increasing)."""

    def check_frames(self, frames: np.ndarray, times_us: np.ndarray) -> None:
        frames, times_us = np.asarray(frames), np.asarray(times_us)
        if frames.ndim != 3 or len(frames) < 2:
            raise CapabilityError(f"frames must be (T ≥ 2, H, W), got shape {frames.shape}")
        if times_us.shape != (len(frames),) or np.any(np.diff(times_us) <= 0):
            raise CapabilityError("frame times must be one per frame and strictly increasing")
        if frames.min() < 0 or not np.isfinite(frames).all():
            raise CapabilityError("frame intensities must be finite and ≥ 0 DN")
