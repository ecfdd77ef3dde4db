"""An array's worth of cells (#48 item 1): simulating a lab-scale session on 512 electrodes.

Every cell under a simulated array is simulated for every stimulation event, so a
session costs cells × events simulations; `local_events` simulates a cell only for the
events that can reach it (backends/mea/locality.py). In one run:

1. The anchor: a session of --anchor-cells cells simulated in full and with
   local_events, both after the same compilation. Verdict: every cell's evoked spikes are
   the full simulation's, event by event, and the traces differ by at most what locality
   reports a left-out event could add (times the cells) plus an int16 step; exit 1 if not.
2. The lab-scale session: --cells cells with local_events only. Its full simulation is
   extrapolated from the anchor's cost per cell-event, and printed as such.
3. Prediction, as a fit predicts held-out patterns: every distinct pattern of the
   lab-scale session for its first --predict-cells cells, by `spikes` (every pattern)
   and `spikes_of` (in order of drive until a batch is silent). Verdict: the same
   outcomes for every cell.

The array is the paper's (16 × 32 hexagonal, 30 µm); the protocol LAB targets each cell's
4 largest-spike electrodes at 8 currents and its first pair at 2 currents both ways, 4
trials each, every 10 ms.

    python benchmarks/mea_array.py --cells 100
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from typing import Any

import numpy as np
from publish import published
from timing import arguments

from substrates.backends.registry import create_backend
from substrates.studies.claims.mea_array_fit import LAB as PROTOCOL

print = functools.partial(print, flush=True)  # rows appear as they are measured

LAB: dict[str, Any] = {**PROTOCOL, "seed": 7}
"""The session's options besides the array's size and the cells: the studies' protocol
(studies/claims/mea_array_fit.py) on the development seed."""

ROWS = 200_000
"""Traces are compared this many samples at a time."""


def session(rows: int, columns: int, cells: int, local: bool) -> tuple[Any, float]:
    """A simulated session (recording and ground truth made) and its wall time (s)."""
    options = {**LAB, "rows": rows, "columns": columns, "array_cells": cells}
    backend = create_backend("mea.jaxley", {**options, "local_events": local})
    began = time.perf_counter()
    backend.recording(), backend.ground_truth()
    return backend, time.perf_counter() - began


def warm(rows: int, columns: int) -> None:
    """Compiles what both anchor sessions run (templates, a batch of responses), so
    neither pays for it."""
    backend = create_backend("mea.jaxley", {**LAB, "rows": rows, "columns": columns})
    model = backend._model
    thetas = np.repeat(backend.hidden[None], model.batch, axis=0)
    model.templates(thetas[:1])
    model.responses(thetas, np.zeros((model.batch, len(backend.positions_um))))


def predictions(lab: Any, cells: int) -> bool:
    """Prints the prediction table for the first `cells` cells of `lab` over its distinct
    patterns; whether spikes_of gave every cell spikes' outcomes."""
    model = lab._model
    patterns = np.unique(lab._currents(lab.recording().stimulation), axis=0)
    thetas = [
        np.array([c.parameters[p.name] for p in model.parameters])
        for c in lab.ground_truth().cells[:cells]
    ]
    model.spikes(np.repeat(thetas[0][None], model.batch, 0), patterns[: model.batch])  # compile
    every_s = local_s = 0.0
    same = True
    for theta in thetas:
        began = time.perf_counter()
        every = model.spikes(np.repeat(theta[None], len(patterns), 0), patterns)
        every_s += time.perf_counter() - began
        began = time.perf_counter()
        local = model.spikes_of(theta, patterns, "triphasic")
        local_s += time.perf_counter() - began
        same &= bool(np.array_equal(every, local))
    print(
        f"\n| prediction, {len(thetas)} cells × {len(patterns):,} patterns | s a cell | vs full |"
    )
    print("|---|---|---|")
    print(f"| spikes (every pattern) | {every_s / len(thetas):.2f} | 1x |")
    print(
        f"| spikes_of (in order of drive) | {local_s / len(thetas):.2f} | "
        f"{every_s / local_s:.1f}x |"
    )
    print(f"outcomes {'identical' if same else 'DIFFERENT'} for every cell")
    return same


def largest_difference_uv(one: Any, other: Any) -> float:
    """The largest difference between two sessions' stored traces (µV)."""
    a, b = one.recording(), other.recording()
    largest = 0.0
    for start in range(0, a.samples, ROWS):
        stop = min(start + ROWS, a.samples)
        step = a.get_traces(start, stop).astype(np.float64) - b.get_traces(start, stop)
        largest = max(largest, float(np.abs(step).max()))
    return largest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=100, help="cells of the lab-scale session")
    parser.add_argument("--anchor-cells", type=int, default=10, help="cells of the anchor")
    parser.add_argument("--rows", type=int, default=16, help="rows of the hexagonal array")
    parser.add_argument("--columns", type=int, default=32, help="columns of the array")
    parser.add_argument(
        "--predict-cells", type=int, default=10, help="cells whose patterns are predicted"
    )
    args = arguments(parser, cells=3, anchor_cells=2, rows=4, columns=6, predict_cells=2)
    rows, columns = args.rows, args.columns
    print(f"array: {rows} × {columns} hexagonal at {LAB['pitch_um']:.0f} µm; protocol LAB\n")

    warm(rows, columns)
    full, full_s = session(rows, columns, args.anchor_cells, local=False)
    local, local_s = session(rows, columns, args.anchor_cells, local=True)
    lab, lab_s = session(rows, columns, args.cells, local=True)

    events = len(full.recording().stimulation)
    per_cell_event_s = full_s / (args.anchor_cells * events)
    saved, lab_saved = local.locality, lab.locality
    lab_events = len(lab.recording().stimulation)
    extrapolated_s = per_cell_event_s * args.cells * lab_events
    print("| session | cells | events | cell-events simulated | wall s | vs full |")
    print("|---|---|---|---|---|---|")
    anchor = f"| full (anchor) | {args.anchor_cells} | {events:,} | {saved.total:,}"
    print(f"{anchor} | {full_s:.1f} | 1x |")
    print(
        f"| local_events | {args.anchor_cells} | {events:,} | {saved.simulated:,} "
        f"({saved.simulated / saved.total:.0%}) | {local_s:.1f} | {full_s / local_s:.1f}x |"
    )
    print(
        f"| local_events, lab scale | {args.cells} | {lab_events:,} | {lab_saved.simulated:,} "
        f"({lab_saved.simulated / lab_saved.total:.0%}) | {lab_s:.1f} | "
        f"{extrapolated_s / lab_s:.0f}x (full extrapolated: {extrapolated_s / 3600:.1f} h) |"
    )
    seconds = lab.recording().samples / lab.options.sampling_hz
    print(
        f"\nlab-scale recording: {seconds:.0f} s, {lab.recording().channels} channels; "
        f"{lab_saved.whole} of {args.cells} cells simulated for every event (no batch of "
        f"them silent: cells that fire from membrane noise alone, or are reached by all)"
    )

    predicted_same = predictions(lab, args.predict_cells)

    truth, anchor = local.ground_truth(), full.ground_truth()
    same = all(
        np.array_equal(mine.evoked, theirs.evoked)
        for mine, theirs in zip(truth.cells, anchor.cells, strict=True)
    )
    difference = largest_difference_uv(local, full)
    allowed = args.anchor_cells * saved.bound_uv + full.recording().gain_uv
    print(
        f"\nanchor: evoked spikes {'identical' if same else 'DIFFERENT'} over "
        f"{saved.total:,} cell-events; traces differ by at most {difference:.2f} µV "
        f"(allowed {allowed:.2f}: {args.anchor_cells} × bound {saved.bound_uv:.2f} + one step)"
    )
    if same and difference <= allowed + 1e-9 and predicted_same:
        print("Verdict: PASS — local_events and spikes_of reproduce the full simulation")
        return 0
    print("Verdict: FAIL — local_events or spikes_of departs from the full simulation")
    return 1


if __name__ == "__main__":
    with published("mea_array"):
        code = main()
    sys.exit(code)
