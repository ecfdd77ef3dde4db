"""`events.file`: a recorded event file — Prophesee EVT 2.0 / EVT 3.0 `.raw`, `.dat`,
iniVation `.aedat4` or `.aedat` (3.x), HDF5 (DSEC layout) or our Parquet — served as packets."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field

from ..base import BackendOptions, Unavailability
from .base import EventsBackend, EventsCapabilities

if TYPE_CHECKING:
    from ...datasets.events.events import Events


class FileOptions(BackendOptions):
    """path: the file (default: a short simulated EVT 3.0 recording shipped with the
    package); width, height: the sensor size where the file's header gives none (else
    inferred from the largest coordinates); background_activity_us: keep only events a
    neighbour supported within this many µs (dv-processing's background-activity filter);
    refractory_us: drop events within this many µs of their pixel's last event (libcaer's
    refractory filter). Filters run on the stream in order, window after window."""

    path: str | None = None
    width: int | None = Field(None, ge=1)
    height: int | None = Field(None, ge=1)
    background_activity_us: int | None = Field(None, ge=1)
    refractory_us: int | None = Field(None, ge=1)


def example_recording() -> Path:
    """The shipped EVT 3.0 example (a drifting texture, 128 × 96 px, 50 ms)."""
    from importlib.resources import files

    return Path(str(files("substrates.datasets.events") / "examples" / "texture.raw"))


STREAMED = ("raw", "dat")
"""Formats read window by window (datasets/events/stream.py); the others are read whole."""


class FileBackend(EventsBackend):
    """Events from a file served in time windows: `.raw` and `.dat` streamed chunk by chunk
    from an index made on opening (memory bounded by the window, not the file), the other
    formats read once."""

    name: ClassVar[str] = "events.file"
    tier: ClassVar = "hardware"
    Options: ClassVar = FileOptions
    requires: ClassVar = ("numba",)

    options: FileOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        path = getattr(options, "path", None)
        if problem is None and path is not None and not Path(path).is_file():
            return Unavailability("no-device", f"no event file at {path}")
        return problem

    @property
    def path(self) -> Path:
        return Path(self.options.path) if self.options.path else example_recording()

    @cached_property
    def recording(self) -> tuple[Any, Any]:
        """(EventStream for .raw/.dat, else Events; FileInfo); errors name the file and
        the byte."""
        from ...datasets.events.files import FORMATS
        from ...datasets.events.stream import EventStream
        from ...errors import InputFileError

        width, height = self.options.width, self.options.height
        if FORMATS.of(self.path).name in STREAMED:
            try:
                stream = EventStream(self.path, width, height)
            except InputFileError as error:
                raise error.about(self.path) from None
            return stream, stream.info
        return FORMATS.read(self.path, width=width, height=height)

    def reading(self) -> dict[str, Any]:
        """How the file was read, for a run's provenance: its encoding, the words that held
        no CD events, where the sensor size came from and the sensor (px)."""
        info, caps = self.recording[1], self.capabilities
        return {
            "encoding": info.encoding,
            "words_without_cd_events": info.skipped,
            "sensor_size_from": info.sensor_from,
            "sensor": [caps.width, caps.height],
        }

    @cached_property
    def capabilities(self) -> EventsCapabilities:
        source, _ = self.recording
        return EventsCapabilities(source.width, source.height, False, source.duration_us)

    def _packets(self, window_us: int, limit_us: int | None) -> Iterator[Events]:
        from ...datasets.events.stream import EventStream

        events, _ = self.recording
        if isinstance(events, EventStream):
            windows = events.windows(window_us, limit_us)
        else:
            if limit_us is not None and len(events):
                t = events.array["t"]
                end = int(t.searchsorted(t[0] + limit_us, side="left"))
                events = type(events)(events.array[:end], events.width, events.height)
            windows = events.windows(duration_us=window_us)
        filters = self._filters(events.width, events.height)
        for window in windows:
            yield _filtered(window, filters)

    def span(self, start_us: int, length_us: int) -> Events:
        """The events from `start_us` to `start_us + length_us` after the recording's first
        event (a .raw or .dat file seeks through its index), noise filters applied from the
        span's start."""
        from ...datasets.events.events import Events as EventArray
        from ...datasets.events.stream import EventStream

        source, _ = self.recording
        if isinstance(source, EventStream):
            begin = source.first_us + start_us
            events = source.window(begin, begin + length_us)
        else:
            t = source.array["t"]
            begin = int(t[0]) + start_us if len(t) else 0
            a, b = np.searchsorted(t, [begin, begin + length_us], side="left")
            events = EventArray(source.array[a:b], source.width, source.height)
        return _filtered(events, self._filters(events.width, events.height))

    def _filters(self, width: int, height: int) -> list[Any]:
        """The noise filters the options ask for, fresh for one pass over the stream."""
        from ...datasets.events.filters import BackgroundActivityFilter, RefractoryFilter

        filters: list[Any] = []
        if self.options.background_activity_us:
            filters.append(
                BackgroundActivityFilter(width, height, self.options.background_activity_us)
            )
        if self.options.refractory_us:
            filters.append(RefractoryFilter(width, height, self.options.refractory_us))
        return filters


def _filtered(events: Events, filters: list[Any]) -> Events:
    """`events` less what each noise filter, in order, drops (the filters keep their state)."""
    array = events.array
    for noise_filter in filters:
        array = array[noise_filter.keep(array)]
    return type(events)(array, events.width, events.height)
