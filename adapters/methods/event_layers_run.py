"""`substrates run event-layers`: decouple the motions of a transmission and a reflection
layer from events alone, on simulated held-out scenes (scored against their ground truth)
or on a recorded event file."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...backends.events.base import EventsBackend, EventSimulatorBackend
from ...backends.events.file import FileBackend
from ...datasets.events.events import Events
from ...errors import InputFileError, OptionError
from ...models.events.layers import decouple_recording, score_scenes, summarize_scenes
from ..runs.plots import event_layers_figure
from .event_layers import EventLayersParameters
from .lifecycle import Outcome, RunContext

FIRST_HELD_OUT_SEED = 100
"""Scenes 0–99 are for development; the run scores scenes from here on."""


def run_event_layers(p: EventLayersParameters, run: RunContext) -> Outcome:
    """A simulator source: score `p.scenes` held-out scenes; a recording (an events.file
    config, or `p.events`): decouple `p.window_ms` of it from `p.start_ms` after its first
    event. A recording is read, and refused if bad, before the run folder is made."""
    backend = run.backend("hardware", EventsBackend)
    if p.start_ms and not isinstance(backend, FileBackend):
        message = f"is for recordings (an events.file source), not {backend.name}"
        raise OptionError(message, option="start_ms")
    sensor = backend.capabilities  # a recording is read, and refused if bad, before any folder
    if isinstance(backend, FileBackend):
        _within_budget(sensor.width, sensor.height, p.max_sensor_pixels, backend)
    reading = {"file": backend.reading()} if isinstance(backend, FileBackend) else {}
    run.begin(p.model_dump(exclude={"hardware"}), **reading)
    affine = p.motion == "affine"
    if isinstance(backend, EventSimulatorBackend):
        seeds = [FIRST_HELD_OUT_SEED + p.seed + k for k in range(p.scenes)]
        rows, arrays = score_scenes(backend, seeds, p.homography, affine, run.report)
        title = f"event layers on {backend.name}: held-out scene {seeds[0]}"
        summary = summarize_scenes(rows)
    else:
        rows, arrays = _recorded(backend, p.window_ms, p.start_ms, affine)
        title = f"event layers on {backend.name}: {p.window_ms:g} ms from {p.start_ms:g} ms"
        summary = rows[0]
    figure = event_layers_figure(arrays, title)
    return Outcome(pa.Table.from_pylist(rows), summary, figures={"layers.png": figure})


def _within_budget(width: int, height: int, max_pixels: int, backend: FileBackend) -> None:
    """Refuse a recording whose sensor is larger than `max_pixels`: the images of the
    decoupling cover the whole sensor (a small file may declare 8192 × 8192)."""
    if width * height > max_pixels:
        raise InputFileError(
            f"sensor {width}×{height} = {width * height:,} pixels, more than the "
            f"{max_pixels:,} event-layers images hold (about 80 bytes a pixel; budget "
            "--max-sensor-pixels)",
            path=getattr(backend, "path", None),
        )


def _recorded(
    backend: EventsBackend, window_ms: float, start_ms: float, affine: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The decoupled window of a recording: its row and what the figure shows."""
    window, start = round(window_ms * 1000), round(start_ms * 1000)
    events: Events | None
    if start and isinstance(backend, FileBackend):
        events = backend.span(start, window)
    else:
        events = next(backend.packets(window, limit_us=window), None)
    if events is None or len(events) < 100:
        raise InputFileError(
            f"fewer than 100 events in the {window_ms:g} ms from {start_ms:g} "
            "ms; nothing to decouple",
            path=getattr(backend, "path", None),
        )
    found, row = decouple_recording(events.array, events.width, events.height, affine)
    arrays = {
        "events": events.array,
        "layer": found.layer,
        "motions": found.motions,
        "width": events.width,
        "height": events.height,
    }
    return [row], arrays
