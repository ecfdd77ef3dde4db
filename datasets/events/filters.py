"""Noise filters for event streams, stateful so that a recording filters window by window
exactly as it would whole.

- `BackgroundActivityFilter`: an event is kept when one of its 8 neighbours (not the pixel
  itself) had an event less than `duration_us` before it, as dv-processing's
  `dv::noise::BackgroundActivityNoiseFilter` decides (tested event for event against it):
  the time surface is updated by every event, kept or not. One difference: a pixel that
  never fired supports nothing here, where dv-processing's zero-initialised surface
  supports every event in the stream's first `duration_us` after time 0.
- `RefractoryFilter`: an event is dropped when its pixel had an event (kept or not, either
  polarity) less than `period_us` before it, as libcaer's refractory-period filter decides
  (its pixel timestamp is written by every event, "so filters are ready at enable-time").

Example:
    >>> import numpy as np
    >>> from substrates.datasets.events.events import EVENT_DTYPE
    >>> events = np.zeros(3, EVENT_DTYPE)
    >>> events["t"], events["x"], events["y"] = [10_000, 10_500, 20_000], [5, 6, 30], [5, 5, 30]
    >>> BackgroundActivityFilter(64, 48, duration_us=2000).keep(events).tolist()
    [False, True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

NEVER_US = np.iinfo(np.int64).min // 2
"""The time surface's value for a pixel that has not fired (µs)."""


@njit(cache=True)
def _background_activity(x, y, t, surface, duration, keep):
    height, width = surface.shape
    for i in range(t.size):
        xi, yi, ti = x[i], y[i], t[i]
        supported = False
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dx == 0 and dy == 0:
                    continue
                px, py = xi + dx, yi + dy
                if 0 <= px < width and 0 <= py < height and ti - surface[py, px] < duration:
                    supported = True
        keep[i] = supported
        surface[yi, xi] = ti


@njit(cache=True)
def _refractory(x, y, t, last, period, keep):
    for i in range(t.size):
        xi, yi, ti = x[i], y[i], t[i]
        keep[i] = ti - last[yi, xi] >= period
        last[yi, xi] = ti


class _PixelMapFilter:
    """A filter holding one time per pixel (µs), NEVER_US before the pixel's first event."""

    def __init__(self, width: int, height: int, span_us: int, name: str) -> None:
        if span_us <= 0:
            raise ValueError(f"{name} must be positive, not {span_us}")
        self.span_us = int(span_us)
        self.times = np.full((height, width), NEVER_US, np.int64)

    def keep(self, events: np.ndarray) -> np.ndarray:
        """Boolean mask of the events (structured t, x, y, p; time-ordered) to keep."""
        keep = np.empty(len(events), np.bool_)
        self._kernel(
            events["x"].astype(np.int64),
            events["y"].astype(np.int64),
            events["t"].astype(np.int64),
            self.times,
            self.span_us,
            keep,
        )
        return keep

    _kernel: Any


class BackgroundActivityFilter(_PixelMapFilter):
    """Keeps events supported by a neighbour's event within `duration_us` (see the module
    doc); call `keep` on consecutive chunks of one stream."""

    _kernel = staticmethod(_background_activity)

    def __init__(self, width: int, height: int, duration_us: int = 2000) -> None:
        super().__init__(width, height, duration_us, "duration_us")


class RefractoryFilter(_PixelMapFilter):
    """Drops events within `period_us` of their pixel's last event (see the module doc);
    call `keep` on consecutive chunks of one stream."""

    _kernel = staticmethod(_refractory)

    def __init__(self, width: int, height: int, period_us: int = 1000) -> None:
        super().__init__(width, height, period_us, "period_us")
