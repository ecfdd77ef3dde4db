"""`substrates run event-layers`: decouple the motions of a transmission and a reflection
layer from events alone, on simulated held-out scenes (scored against their ground truth)
or on a recorded event file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from ...backends.errors import SubstratesError
from ...backends.events.base import EventsBackend, EventSimulatorBackend
from ...datasets.events.events import Events
from ...models.events.layers import decouple_recording, evaluate_scene
from ...models.events.scenes import ReflectionScene
from ..config import ConfigError, backend_from_config, load_config
from .folder import RunFolder
from .plots import close_figure, event_layers_figure
from .progress import Progress
from .provenance import now, provenance, recording_failure

FIRST_HELD_OUT_SEED = 100
"""Scenes 0–99 are for development; the run scores scenes from here on."""


def run_event_layers(
    *,
    hardware: str | Path,
    events: str | None,
    scenes: int,
    seed: int,
    window_ms: float,
    homography: bool,
    motion: Literal["translation", "affine"],
    out: str | Path,
    start_ms: float = 0.0,
    progress: Progress | None = None,
) -> RunFolder:
    """Simulator config: score `scenes` held-out scenes (with `homography`, layers also zoom,
    turn and tilt); file config (or an `events` file): decouple `window_ms` of the
    recording from `start_ms` after its first event. `motion`: translation or affine
    (velocities with gradients)."""
    events_file = events
    resolved = load_config(hardware)
    if resolved.config.substrate != "events":
        raise ConfigError(resolved.path, "substrate", "event-layers needs an events source")
    if scenes < 1 or window_ms <= 0:
        raise SubstratesError("--scenes must be ≥ 1 and --window-ms positive")
    if start_ms < 0:
        raise SubstratesError("--start-ms must be ≥ 0")
    affine = motion == "affine"
    backend = backend_from_config(resolved)
    if events_file is not None:
        if resolved.config.backend != "events.file":
            raise ConfigError(resolved.path, "backend", "--events needs an events.file config")
        path = Path(events_file)
        if not path.is_file():
            raise SubstratesError(f"--events {events_file}: no such file")
        backend = type(backend)({**backend.options.model_dump(), "path": str(path)})
    assert isinstance(backend, EventsBackend)
    _ = backend.capabilities  # a recording is read (and refused if bad) before any folder
    folder = RunFolder.create(out, "event-layers")
    if start_ms and isinstance(backend, EventSimulatorBackend):
        raise SubstratesError("--start-ms is for recordings (an events.file source)")
    parameters = {
        "events": events_file,
        "scenes": scenes,
        "seed": seed,
        "window_ms": window_ms,
        "start_ms": start_ms,
        "homography": homography,
        "motion": motion,
    }
    record = provenance("event-layers", resolved, backend, parameters)
    recording = getattr(backend, "recording", None)  # a file: how it was read
    if recording is not None:
        info, caps = recording[1], backend.capabilities
        record["file"] = {
            "encoding": info.encoding,
            "words_without_cd_events": info.skipped,
            "sensor_size_from": info.sensor_from,
            "sensor": [caps.width, caps.height],
        }
    folder.write_json("provenance.json", record)
    began = time.perf_counter()
    with recording_failure(folder, record):
        if isinstance(backend, EventSimulatorBackend):
            rows, arrays = _simulated(backend, scenes, seed, homography, affine, progress)
            title = f"event layers on {backend.name}: held-out scene {rows[0]['scene']}"
        else:
            rows, arrays = _recorded(backend, window_ms, start_ms, affine)
            title = f"event layers on {backend.name}: {window_ms:g} ms from {start_ms:g} ms"
    folder.write_table("results.parquet", pa.Table.from_pylist(rows))
    figure = event_layers_figure(arrays, title)
    folder.save_figure("layers.png", figure)
    close_figure(figure)
    summary = _summary(rows)
    record.update(
        status="complete",
        finished_at=now(),
        summary=summary,
        wall_time_s=round(time.perf_counter() - began, 3),
    )
    folder.write_json("provenance.json", record)
    return folder


def _simulated(
    backend: EventSimulatorBackend,
    scenes: int,
    seed: int,
    homography: bool,
    affine: bool,
    progress: Progress | None,
) -> tuple[list, dict]:
    rows, first = [], {}
    for k in range(scenes):
        scene = ReflectionScene.random(FIRST_HELD_OUT_SEED + seed + k, homography=homography)
        row, arrays = evaluate_scene(scene, backend, affine)
        rows.append({"scene": FIRST_HELD_OUT_SEED + seed + k, **row})
        first = first or {**arrays, "width": scene.width, "height": scene.height}
        if progress:
            progress("scenes", k + 1, scenes)
    return rows, first


def _recorded(
    backend: EventsBackend, window_ms: float, start_ms: float, affine: bool
) -> tuple[list, dict]:
    from ...backends.events.file import FileBackend

    window, start = round(window_ms * 1000), round(start_ms * 1000)
    events: Events | None
    if start and isinstance(backend, FileBackend):
        events = backend.span(start, window)
    elif start:
        raise SubstratesError(f"{backend.name}: --start-ms needs a recorded file")
    else:
        events = next(backend.packets(window, limit_us=window), None)
    if events is None or len(events) < 100:
        raise SubstratesError(
            f"{backend.name}: fewer than 100 events in the {window_ms:g} ms "
            f"from {start_ms:g} ms; nothing to decouple"
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


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if "assignment_accuracy" not in rows[0]:
        return rows[0]
    columns = [
        "assignment_accuracy",
        "assignment_accuracy_clear",
        "motion_error_T_px_s",
        "motion_error_R_px_s",
        "flow_error_T_px_s",
        "flow_error_R_px_s",
        "psnr_input_db",
        "psnr_aligned_min_db",
        "psnr_removed_db",
        "psnr_removed_true_motion_db",
    ]
    summary = {f"mean_{c}": float(np.mean([r[c] for r in rows])) for c in columns}
    within = [max(r["motion_error_T_px_s"], r["motion_error_R_px_s"]) <= 20 for r in rows]
    flows = [max(r["flow_error_T_px_s"], r["flow_error_R_px_s"]) <= 20 for r in rows]
    decoupled = [r["worse_motion_error_either_naming_px_s"] <= 20 for r in rows]
    summary.update(
        scenes=len(rows),
        transmission_chosen_right=int(sum(r["transmission_chosen_right"] for r in rows)),
        both_motions_within_20_px_s=int(sum(within)),
        both_motions_within_20_px_s_either_naming=int(sum(decoupled)),
        both_flows_within_20_px_s=int(sum(flows)),
    )
    return summary
