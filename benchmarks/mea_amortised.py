"""Amortised fits for a whole array (#48 item 1): every sorted cell of a lab-scale session.

The goal: at least 100 cells of a simulated 512-electrode session fitted in at most 60
minutes on two cores, with held-out accuracy of at least 90%. One run:

1. The session: --cells cells under the paper's array (16 × 32 hexagonal, 30 µm) with
   mea_array.py's protocol LAB, simulated with local_events. Timed apart: it makes the
   data; a lab has it.
2. The fit, timed from the recording on: the preprocessed traces computed once, sorting
   (spykingcircus2) of the spontaneous spikes, every sorted unit observed (fitting
   electrodes among the seven nearest its reference), one bank of --draws simulated cells
   (models/hh/amortised.py), then each unit's posterior from the bank and its fit
   (refinement from the posterior's samples, calibration, prediction). Units are observed
   one per core in forked processes (adapters/runs/forked.py), as hh-fit does. Nothing of
   the truth feeds it; the truth scores it: each unit is paired with the cell its spikes
   matched, and held-out patterns (every other single electrode, every pair) are scored
   against the majority of their trials.
3. The anchor, in the same run: the per-cell fit (fit.fit_cell's own NPE from
   --simulations simulations, its image-anchored starts) on the first --anchor-units
   units, with the same observations.

Seeds, declared on 2026-12-06 before any amortised fit ran: development on LAB seed 7 (10
cells: the session mea_array.py also simulates); the scored session was seed 11; bank
seed 1. Seed 11's one run fitted 109 cells at 96.1% in 60.3 min, 19 s over the goal. The
fit was then made faster on seed 7 alone (refinement's starts in one batch a step,
calibration's grid points whose image alone scores worse left without thresholds,
compiled batch sizes rounded to powers of two), each fit's result unchanged (seed 7's
first eight units: the same cells to 1e-12), and a second scored session, seed 13, was
declared on 2026-12-06 (23:28 UTC) before it was simulated; it is the default.

What evaluation and method share: the simulator is the fit's own model (the same
morphology, kinetics and prior; model mismatch is item 5's study), so this measures cost
and what sorting, detection and amortisation lose, not robustness to a wrong model.

Verdict: PASS when units matching at least --goal-cells distinct cells are fitted within
--goal-minutes and their mean held-out accuracy is at least --goal-accuracy; exit 1
otherwise.

    python benchmarks/mea_amortised.py --cells 110

With --session FILE the simulated session (recording and truth) is kept in FILE (a
pickle; 2.5 GB at 110 cells) and read from it when it exists and was made with the
same options, so a rerun does not simulate it again (it is not part of the timed fit).
"""

from __future__ import annotations

import argparse
import functools
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from mea_array import LAB
from publish import published
from timing import arguments

from substrates.backends.registry import create_backend
from substrates.models.hh.fit import CellFit, fit_cell
from substrates.models.hh.report import true_outcomes
from substrates.studies.claims.mea_array_fit import BASELINES, balanced, fit_array

print = functools.partial(print, flush=True)  # rows appear as they are measured


def versus_truth(fit: CellFit, candidate: str, outcomes: dict[Any, float]) -> float:
    """The fraction of `fit`'s held-out patterns whose predicted response (by `candidate`)
    is the truth's (the simulator's record of the trials: a spike on more than half)."""
    predicted = fit.predicted_held_out_by[candidate]
    right = [
        bool(spike) == (outcomes[r.pattern] > 0.5)
        for r, spike in zip(fit.held_out, predicted, strict=True)
        if r.pattern in outcomes
    ]
    return float(np.mean(right)) if right else float("nan")


def interval(values: np.ndarray, seed: int = 0, draws: int = 2000) -> tuple[float, float]:
    """95% percentile interval of the mean, resampling units (each unit's patterns stay
    together: the unit is the cluster)."""
    values = values[np.isfinite(values)]
    rng = np.random.default_rng(seed)
    means = rng.choice(values, (draws, len(values))).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def simulated(options: dict[str, Any], path: Path | None) -> tuple[Any, Any, str]:
    """The session's recording and truth, simulated (and kept in `path`, when given), or
    read from `path` when it holds a session made with these `options`; and how."""
    if path is not None and path.exists():
        with path.open("rb") as file:
            kept = pickle.load(file)
        if kept["options"] == options:
            return kept["recording"], kept["truth"], f"read from {path}"
        print(f"{path} holds a session made with other options: simulating it again")
    began = time.perf_counter()
    session = create_backend("mea.jaxley", options)
    recording, truth = session.recording(), session.ground_truth()
    how = f"simulated in {time.perf_counter() - began:.0f} s"
    if path is not None:
        partial = path.with_suffix(".partial")
        with partial.open("wb") as file:
            pickle.dump({"options": options, "recording": recording, "truth": truth}, file, 5)
        partial.replace(path)
    return recording, truth, how


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=110, help="cells of the session")
    parser.add_argument("--seed", type=int, default=13, help="the session's seed")
    parser.add_argument("--rows", type=int, default=16, help="rows of the hexagonal array")
    parser.add_argument("--columns", type=int, default=32, help="columns of the array")
    parser.add_argument("--draws", type=int, default=1000, help="cells in the bank")
    parser.add_argument("--anchor-units", type=int, default=2, help="units fitted per cell")
    parser.add_argument("--simulations", type=int, default=1000, help="per-cell NPE's")
    parser.add_argument("--goal-cells", type=int, default=100, help="units to fit")
    parser.add_argument("--goal-minutes", type=float, default=60.0, help="fit wall, min")
    parser.add_argument("--goal-accuracy", type=float, default=0.9, help="mean held out")
    parser.add_argument(
        "--session", type=Path, default=None, help="keep the simulated session in this file"
    )
    args = arguments(
        parser,
        cells=3,
        rows=6,
        columns=8,
        draws=16,
        anchor_units=1,
        simulations=50,
        goal_cells=1,
        goal_accuracy=0.0,
    )
    options = {**LAB, "seed": args.seed, "rows": args.rows, "columns": args.columns}
    print(
        f"array: {args.rows} × {args.columns} hexagonal at {LAB['pitch_um']:.0f} µm; protocol "
        f"LAB; {args.cells} cells, seed {args.seed}; bank of {args.draws:,} (seed 1)\n"
    )
    recording, truth, how = simulated(
        {**options, "array_cells": args.cells, "local_events": True}, args.session
    )
    began = time.perf_counter()
    done = fit_array(recording, truth, options, args.draws, say=print)
    fit_s = time.perf_counter() - began
    fits, record, stages = done.fits, done.record, done.stages
    for line in done.refused:
        print(line)
    engine = create_backend("mea.jaxley", {**options, "array_cells": 1})
    model = engine.cell_model(recording.positions_um)

    print(f"session {how} (not counted: it is the data)")
    print("\n| stage | wall s |")
    print("|---|---|")
    for stage, seconds in stages.items():
        print(f"| {stage} | {seconds:.0f} |")
    print(f"| **the fit, from the recording** | **{fit_s:.0f}** ({fit_s / 60:.1f} min) |")

    scored = [(u, f) for u, f in fits if u.cell is not None]
    matched = len({u.cell for u, _ in scored})
    skipped = len(record["skipped"])
    print(
        f"\n{len(record['units'])} units sorted, {len(fits) + len(done.refused)} observed "
        f"({skipped} left: too few spikes, or stimulation that cannot constrain them), "
        f"{len(fits)} fitted; {matched} distinct cells of {args.cells} matched"
    )
    accuracy = np.array([f.accuracy_held_out for _, f in scored])
    patterns = sum(len(f.held_out) for _, f in scored)
    outcomes = [true_outcomes(recording, truth.cells[u.cell]) for u, _ in scored]
    caption = f"held out ({len(scored)} units, {patterns:,} patterns)"
    print(f"\n| {caption} | accuracy | 95% (units) | balanced | vs truth |")
    print("|---|---|---|---|---|")
    for name in ("fit", *BASELINES):
        key = None if name == "fit" else name
        values = np.array(
            [f.accuracy_held_out if key is None else f.accuracy_held_out_of(key) for _, f in scored]
        )
        both = np.array([balanced(f, key or f.chosen) for _, f in scored])
        true = np.array(
            [
                versus_truth(f, key or f.chosen, o)
                for (_, f), o in zip(scored, outcomes, strict=True)
            ]
        )
        low, high = interval(values)
        print(
            f"| {name.replace('_', ' ')} | {np.mean(values):.1%} | {low:.1%}–{high:.1%} | "
            f"{np.nanmean(both):.1%} | {np.nanmean(true):.1%} |"
        )
    print(
        "(accuracy: against the majority of each pattern's recorded trials; vs truth: against "
        "whether the cell's spike probability over those trials, as simulated, was over one "
        "half; the truth scores, it never feeds the fit)"
    )

    anchor = scored[: args.anchor_units]
    if anchor:
        print(f"\n| per unit, first {len(anchor)} units | wall s | held-out accuracy |")
        print("|---|---|---|")
        per_cell_s, per_cell_accuracy = 0.0, []
        for unit, _ in anchor:
            mark = time.perf_counter()
            own = fit_cell(recording, model, args.simulations, unit.index, observed=unit.observed)
            per_cell_s += time.perf_counter() - mark
            per_cell_accuracy.append(own.accuracy_held_out)
        whole_s = fit_s / max(1, len(fits))
        mean_own = per_cell_s / len(anchor)
        print(
            f"| per-cell NPE ({args.simulations:,} simulations; anchor), its fit only | "
            f"{mean_own:.0f} | {np.mean(per_cell_accuracy):.1%} |"
        )
        print(
            f"| amortised, everything from the recording per unit | {whole_s:.0f} | "
            f"{np.mean([f.accuracy_held_out for _, f in anchor]):.1%} |"
        )
        print(
            f"amortised: {mean_own / whole_s:.1f}x the per-cell fit's speed (at least: the "
            "per-cell figure leaves out its preprocessing, sorting and observation)"
        )

    within_time = fit_s <= args.goal_minutes * 60
    enough = matched >= args.goal_cells
    accurate = len(accuracy) > 0 and float(np.mean(accuracy)) >= args.goal_accuracy
    goal = (
        f"{args.goal_cells} cells in {args.goal_minutes:g} min at ≥ {args.goal_accuracy:.0%} "
        "held out"
    )
    if within_time and enough and accurate:
        print(
            f"Verdict: PASS — {len(scored)} cells fitted in {fit_s / 60:.1f} min, mean "
            f"held-out accuracy {np.mean(accuracy):.1%} (goal {goal})"
        )
        return 0
    print(
        f"Verdict: FAIL — {matched} cells fitted in {fit_s / 60:.1f} min, mean held-out "
        f"accuracy {np.mean(accuracy) if len(accuracy) else float('nan'):.1%} (goal {goal})"
    )
    return 1


if __name__ == "__main__":
    with published("mea_amortised"):
        code = main()
    sys.exit(code)
