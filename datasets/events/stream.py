"""Prophesee `.raw` (EVT 2.0 / 2.1 / 3.0) and `.dat` files read window by window: memory
bounded by the window and one chunk of words, not by the file.

Opening a file makes one pass over it (memory-mapped, chunk by chunk, no events kept) that
checks every word as `read_events` does (errors name the byte), counts the words without a
CD event, finds the sensor size where the header gives none, and keeps an index: for each
chunk, its byte offset, the decoder's state before it and the times of its first and last
event. Windows are then decoded from the chunks they overlap only, so `window(start, end)`
seeks and `windows(...)` streams.

Memory: a chunk holds at most CHUNK_EVENTS events (16 bytes each: 64 MB), whatever its
encoding (EVT 3.0 vector words carry up to 12 events in 2 bytes, so its chunks are the
smallest in bytes); streaming holds one window's events plus at most one chunk beyond it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .events import EVENT_DTYPE, EventError, Events
from .files import FileInfo, open_layout, sensor_size

CHUNK_EVENTS = 4_000_000
"""Most events one chunk can decode to."""
EVENTS_PER_WORD = {"evt2": 1, "evt21": 32, "evt3": 12, "dat": 1}
"""The most CD events one word (record) can carry."""


@dataclass(frozen=True)
class Chunk:
    """Bytes [offset, offset + size) of the payload; the decoder's state before them; the
    times (µs) of their first and last event (−1 without events)."""

    offset: int
    size: int
    state: np.ndarray
    first_us: int
    last_us: int


class EventStream:
    """A .raw or .dat file, indexed on opening (see the module doc).

    Example:
        >>> from substrates.backends.events.file import example_recording
        >>> stream = EventStream(example_recording())
        >>> stream.width, stream.height
        (128, 96)
        >>> sum(len(w) for w in stream.windows(10_000)) == stream.events
        True
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        width: int | None = None,
        height: int | None = None,
        chunk_events: int = CHUNK_EVENTS,
    ) -> None:
        self.layout = layout = open_layout(path)
        step = max(1, chunk_events // EVENTS_PER_WORD[layout.encoding]) * layout.word
        state = layout.start_state()
        chunks: list[Chunk] = []
        self.events = self.skipped = 0
        wide = high = 0
        for offset in range(0, len(layout.payload), step):
            before = state.copy()
            words = layout.payload[offset : offset + step]
            array, skipped, w, h = layout.decode(words, offset, state)
            t = array["t"]
            chunks.append(
                Chunk(
                    offset,
                    len(words),
                    before,
                    int(t[0]) if len(t) else -1,
                    int(t[-1]) if len(t) else -1,
                )
            )
            self.events += len(array)
            self.skipped += skipped
            wide, high = max(wide, w), max(high, h)
        self.chunks = chunks
        layout.check_vendor_share(self.skipped)
        self.width, self.height, self.sensor_from = sensor_size(
            layout.header, width, height, wide, high, self.events == 0, layout.path
        )
        if wide > self.width or high > self.height:
            self._refuse_outside()
        timed = [c for c in chunks if c.first_us >= 0]
        self.first_us = timed[0].first_us if timed else 0
        self.last_us = timed[-1].last_us if timed else 0

    @property
    def info(self) -> FileInfo:
        """How the file was read (encoding, words without CD events, sensor's origin)."""
        return FileInfo(
            self.layout.encoding, self.skipped, self.sensor_from, self.layout.header.fields
        )

    @property
    def duration_us(self) -> int:
        return self.last_us - self.first_us if self.events else 0

    def _decode(self, chunk: Chunk) -> Events:
        words = self.layout.payload[chunk.offset : chunk.offset + chunk.size]
        array, *_ = self.layout.decode(words, chunk.offset, chunk.state.copy())
        return Events(array, self.width, self.height)

    def _refuse_outside(self) -> None:
        """The error `Events.check` gives for the whole file: the first event outside the
        sensor, numbered in the file, and how many there are (a second pass, only on this
        error path)."""
        before, found, count = 0, None, 0
        for chunk in self.chunks:
            a = self._decode(chunk).array
            outside = np.flatnonzero((a["x"] >= self.width) | (a["y"] >= self.height))
            if found is None and outside.size:
                i = int(outside[0])
                found = (before + i, int(a["x"][i]), int(a["y"][i]))
            count += outside.size
            before += len(a)
        assert found is not None
        i, x, y = found
        raise EventError(
            f"{self.layout.path}: event {i} at x={x}, y={y} lies outside the "
            f"{self.width}×{self.height} sensor ({count} such events)"
        )

    def window(self, start_us: int, end_us: int) -> Events:
        """The events with start_us ≤ t < end_us, decoded from the chunks that hold them."""
        parts = [
            self._decode(c).array
            for c in self.chunks
            if c.first_us >= 0 and c.last_us >= start_us and c.first_us < end_us
        ]
        array = np.concatenate(parts) if parts else np.empty(0, EVENT_DTYPE)
        t = array["t"]
        a, b = np.searchsorted(t, start_us, "left"), np.searchsorted(t, end_us, "left")
        return Events(array[a:b], self.width, self.height)

    def windows(
        self, window_us: int, limit_us: int | None = None, start_us: int | None = None
    ) -> Iterator[Events]:
        """Consecutive windows of `window_us` from `start_us` (default: the first event), up
        to `limit_us` after that start, as `Events.windows` cuts a whole recording (empty
        windows between events included, none after the last)."""
        if window_us <= 0:
            raise ValueError("window_us must be positive")
        if not self.events:
            return
        begin = self.first_us if start_us is None else int(start_us)
        cut = np.iinfo(np.int64).max if limit_us is None else begin + int(limit_us)
        ahead = [c for c in self.chunks if c.first_us >= 0 and c.last_us >= begin]
        pending = np.empty(0, EVENT_DTYPE)
        low = begin
        while True:
            high = min(low + window_us, cut)
            # chunks gathered in a list and joined once (joining one at a time copied the
            # window again for every chunk: seconds for a window of millions of events)
            parts, size = [pending], len(pending)
            while ahead and (not size or parts[-1]["t"][-1] < high):
                decoded = self._decode(ahead.pop(0)).array
                part = decoded[decoded["t"] >= low]
                if len(part):
                    parts.append(part)
                    size += len(part)
            pending = np.concatenate(parts) if len(parts) > 1 else pending
            # stop once nothing is left before the cut
            if not len(pending) or pending["t"][0] >= cut:
                return
            split = int(np.searchsorted(pending["t"], high, "left"))
            yield Events(pending[:split], self.width, self.height)
            pending = pending[split:]
            low += window_us
