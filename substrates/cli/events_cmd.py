"""`substrates run event-layers`: a transmission and a reflection layer told apart by events."""

from __future__ import annotations

import argparse
from typing import Any

from .progress import print_summary, run_with_bar


def add_events_parser(methods: argparse._SubParsersAction) -> None:
    parser = methods.add_parser(
        "event-layers",
        help="decouple a reflection's motion from the transmission's, from events alone",
        description=(
            "Estimate the motions of two layers (a transmission and a reflection moving "
            "differently) from events alone by contrast maximisation with two motions, assign "
            "every event to a layer, and remove the reflection using the transmission's "
            "motion. With a simulator source: held-out two-layer scenes are rendered and "
            "simulated, and assignment accuracy, motion errors (px/s: at the image centre, and "
            "the flow's mean over the image) and the PSNR (dB) of the recovered transmission "
            "are scored against the ground truth. With an events.file "
            "source (or --events FILE): the recording's first --window-ms is decoupled. Writes "
            "results.parquet, provenance.json and layers.png."
        ),
    )
    parser.add_argument(
        "--source", "--hardware", dest="hardware", default="events_sim", metavar="CONFIG",
        help="events config file or shipped name: events_sim, events_sim_gpu, events_file",
    )  # fmt: skip
    parser.add_argument("--events", metavar="FILE", help="event file (.raw, .dat, .aedat4)")
    parser.add_argument("--scenes", type=int, default=6, help="held-out scenes (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="first held-out scene offset")
    parser.add_argument(
        "--window-ms", type=float, default=200.0, help="recording span to decouple (ms)"
    )
    parser.add_argument(
        "--homography", action="store_true",
        help="simulated scenes: layers also zoom, turn and tilt",
    )  # fmt: skip
    parser.add_argument(
        "--motion", choices=("translation", "affine"), default="translation",
        help="each layer's motion model: a translation (px/s), or affine: a velocity at the "
             "image centre plus its gradient (1/s), for zoom, rotation and shear",
    )  # fmt: skip
    parser.add_argument("--out", default="runs", help="folder for run folders (default: runs)")
    parser.set_defaults(handler=handle_event_layers)


def run_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_event_layers' arguments from the command line (all but out and progress)."""
    return {
        "hardware": args.hardware, "events_file": args.events, "scenes": args.scenes,
        "seed": args.seed, "window_ms": args.window_ms, "homography": args.homography,
        "motion": args.motion,
    }  # fmt: skip


def handle_event_layers(args: argparse.Namespace) -> int:
    from substrates.adapters.runs.event_layers_run import run_event_layers

    arguments = {**run_arguments(args), "out": args.out}
    print_summary(*run_with_bar(run_event_layers, arguments, "scenes", "scene"))
    return 0
