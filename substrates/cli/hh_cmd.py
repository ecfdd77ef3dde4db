"""`substrates run hh-fit`: a Hodgkin–Huxley cell fitted to an MEA recording, simulated or
recorded, and its predictions for held-out stimulation patterns."""

from __future__ import annotations

import argparse
from typing import Any

from .progress import print_summary, run_with_bar


def add_hh_parser(methods: argparse._SubParsersAction) -> None:
    parser = methods.add_parser(
        "hh-fit",
        help="fit a Hodgkin–Huxley cell to an MEA recording and predict held-out stimulation",
        description=(
            "Fit a multi-compartment Hodgkin–Huxley cell (channel densities, axial "
            "resistivity, axon radius, position over the array) to one cell's extracellular "
            "recording: spontaneous spikes give its electrical image, stimulation trials its "
            "activation thresholds on half of the stimulated electrodes; neural posterior "
            "estimation (sbi) over the simulator's prior, then Levenberg–Marquardt through "
            "jaxley on the image, then a grid over channel densities and height to match the "
            "thresholds. The fitted cell predicts spike or no spike for the held-out "
            "patterns (other electrodes, and every multi-electrode pattern), scored against "
            "the majority of their trials. With a simulator source each session is written "
            "as NWB, fitted from that file, and compared with its hidden parameters. Writes "
            "results.parquet, provenance.json, hh_fit.png (and cellN.nwb when simulated)."
        ),
    )
    parser.add_argument(
        "--source", "--hardware", dest="hardware", default="mea_sim", metavar="CONFIG",
        help="mea config file or shipped name: mea_sim, mea_sim_gpu, mea_nwb, mea_litke, mea_neo",
    )  # fmt: skip
    parser.add_argument("--recording", metavar="FILE", help="recording file for a file config")
    parser.add_argument(
        "--simulator", default="mea_sim", metavar="CONFIG",
        help="the cell simulator to fit with (default mea_sim; mea_sim_gpu on a GPU)",
    )  # fmt: skip
    parser.add_argument(
        "--simulations", type=int, default=1000, help="NPE simulations per cell (default 1000)"
    )
    parser.add_argument(
        "--cells", type=int, default=1, help="simulated sessions, seeds seed… (default 1)"
    )
    parser.add_argument(
        "--seed", type=int, default=None,
        help="first simulated session's seed (default: the config's) and NPE's (default 0)",
    )  # fmt: skip
    parser.add_argument("--out", default="runs", help="folder for run folders (default: runs)")
    parser.set_defaults(handler=handle_hh_fit)


def run_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_hh_fit's arguments from the command line (all but out and progress)."""
    return {
        "source": args.hardware, "recording_file": args.recording, "simulator": args.simulator,
        "simulations": args.simulations, "cells": args.cells, "seed": args.seed,
    }  # fmt: skip


def handle_hh_fit(args: argparse.Namespace) -> int:
    from substrates.adapters.runs.hh_fit_run import run_hh_fit

    arguments = {**run_arguments(args), "out": args.out}
    print_summary(*run_with_bar(run_hh_fit, arguments, "simulations", "sim"))
    return 0
