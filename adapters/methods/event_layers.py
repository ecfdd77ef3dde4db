"""`event-layers`: a transmission and a reflection layer told apart by events alone."""

from __future__ import annotations

from typing import Literal

from ...backends.events.base import EventsBackend
from .method import SEED_MAX, Method, MethodParameters, implementation, option, summary_report
from .summary import Entry

MAX_SENSOR_PIXELS = 1 << 23
"""The largest sensor event-layers decouples by default (its contrast images and the
figure's take about 80 bytes a pixel: 670 MB here; a 1280 × 720 sensor is 921,600)."""


class EventLayersParameters(MethodParameters):
    """Parameters of `substrates run event-layers`."""

    hardware: str = option(
        "events_sim",
        "events config file or shipped name: events_sim, events_sim_gpu, events_file",
        flags=("--source", "--hardware"),
        metavar="CONFIG",
        input="config",
    )
    events: str | None = option(
        None, "event file (.raw, .dat, .aedat4)", metavar="FILE", input="file"
    )
    scenes: int = option(6, "held-out scenes", ge=1)
    seed: int = option(0, "first held-out scene offset", ge=0, le=SEED_MAX)
    window_ms: float = option(200.0, "recording span to decouple (ms)", gt=0)
    start_ms: float = option(
        0.0,
        "recordings: where that span starts, in ms after the first "
        "event (.raw and .dat files seek there without decoding what "
        "comes before)",
        ge=0,
    )
    homography: bool = option(False, "simulated scenes: layers also zoom, turn and tilt")
    max_sensor_pixels: int = option(
        MAX_SENSOR_PIXELS,
        "recordings: the largest sensor (width × height, pixels) decoupled; its images take "
        "about 80 bytes a pixel (8,388,608 pixels: about 670 MB)",
        ge=1,
    )
    motion: Literal["translation", "affine"] = option(
        "translation",
        "each layer's motion model: a translation (px/s), or affine: a velocity at the image "
        "centre plus its gradient (1/s), for zoom, rotation and shear",
    )


SUMMARY = (
    Entry("scenes", "held-out scenes scored", format="d"),
    Entry("mean_assignment_accuracy", "events assigned to their true layer", "%"),
    Entry("mean_assignment_accuracy_clear", "the same, where one layer clearly dominates", "%"),
    Entry("mean_motion_error_{layer}_px_s", "mean motion error of layer {layer}", "px/s"),
    Entry(
        "mean_flow_error_{layer}_px_s", "mean flow error of layer {layer} over the image", "px/s"
    ),
    Entry("mean_psnr_input_db", "mean PSNR of the input frame against the transmission", "dB"),
    Entry("mean_psnr_aligned_min_db", "mean PSNR of the aligned minimum", "dB"),
    Entry("mean_psnr_removed_db", "mean PSNR with the reflection removed", "dB"),
    Entry("mean_psnr_removed_true_motion_db", "the same with the true motion (the bound)", "dB"),
    Entry("transmission_chosen_right", "scenes whose transmission was named right", format="d"),
    Entry("both_motions_within_20_px_s", "scenes with both motions within 20 px/s", format="d"),
    Entry(
        "both_motions_within_20_px_s_either_naming",
        "scenes with both motions within 20 px/s, either layer named the transmission",
        format="d",
    ),
    Entry("both_flows_within_20_px_s", "scenes with both flows within 20 px/s", format="d"),
    Entry("events", "events decoupled", format="d"),
    Entry("v{axis}_{layer}", "layer {layer} velocity v{axis} at the image centre", "px/s"),
    Entry("dv{a}_d{b}_per_s_{layer}", "layer {layer} gradient dv{a}/d{b}", "1/s"),
    Entry("layer_{layer}_events", "events assigned to layer {layer}", format="d"),
    Entry("contrast_{layer}", "contrast of layer {layer}'s warped image"),
)
"""The summary of a simulated run (scores over held-out scenes) and of a recording (layer
0 is the one named the transmission)."""


METHOD = Method(
    name="event-layers",
    help="decouple a reflection's motion from the transmission's, from events alone",
    description=(
        "Estimate the motions of two layers (a transmission and a reflection moving "
        "differently) from events alone by contrast maximisation with two motions, assign "
        "every event to a layer, and remove the reflection using the transmission's "
        "motion. With a simulator source: held-out two-layer scenes are rendered and "
        "simulated, and assignment accuracy, motion errors (px/s: at the image centre, and "
        "the flow's mean over the image) and the PSNR (dB) of the recovered transmission "
        "are scored against the ground truth. With an events.file "
        "source (or --events FILE): --window-ms of the recording from --start-ms is decoupled. "
        "Writes "
        "results.parquet, provenance.json and layers.png."
    ),
    summary=SUMMARY,
    parameters=EventLayersParameters,
    run=implementation(".event_layers_run", "run_event_layers"),
    backends={"hardware": EventsBackend},
    overrides={"events": ("hardware", "path")},
    report=summary_report,
)
