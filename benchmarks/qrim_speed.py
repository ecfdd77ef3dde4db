"""QRIM end to end at the sizes issue #17 names, against its goal of five minutes each.

Runs `substrates run qrim` (through `substrates.run`) with the gate oracle at |U| = 64
(robust value iteration, FrozenLake 4x4) and with robust Q-learning at |U| = 256
(inventory), on the exact Aer state vector, and prints wall time, the ratio to the
300-second goal, minimizations, distinct circuits run and backend calls. Where the time
goes is measured with `--profile` (cProfile, the ten largest cumulative entries in QRIM's
own code). Ends with a verdict: exit 1 when a run takes 300 s or more.

    python benchmarks/qrim_speed.py [--profile] [--docs]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time

from publish import published

import substrates

GOAL_S = 300.0
CASES = [
    (
        "gate oracle, |U| = 64, value iteration",
        {"oracle": "gates", "uncertainty": 64, "env": "frozenlake4"},
    ),
    (
        "diagonal oracle, |U| = 256, Q-learning",
        {"outer": "q_learning", "uncertainty": 256, "env": "inventory"},
    ),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    args = parser.parse_args()
    print("| run | wall time | / 300 s goal | minimizations | circuits run | backend calls |")
    print("|---|---|---|---|---|---|")
    over = []
    for label, options in CASES:
        profiler = cProfile.Profile() if args.profile else None
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            if profiler is not None:
                profiler.enable()
            run = substrates.run("qrim", out=out, **options)
            if profiler is not None:
                profiler.disable()
            wall = time.perf_counter() - start
        s = run.summary
        if wall >= GOAL_S:
            over.append(f"{label}: {wall:.0f} s")
        print(
            f"| {label} | {wall:.0f} s | {wall / GOAL_S:.2f} | {s['minimizations']:,} "
            f"| {s['backend_circuits']:,} | {s['backend_calls']:,} |"
        )
        if profiler is not None:
            stats = pstats.Stats(profiler).sort_stats("cumulative")
            stats.print_stats(r"substrates|qiskit/circuit/quantumcircuit", 12)
    if over:
        print(f"\nverdict: goal missed (under {GOAL_S:.0f} s each) — " + "; ".join(over))
        return 1
    print(f"\nverdict: goal met (each run under {GOAL_S:.0f} s on this machine)")
    return 0


if __name__ == "__main__":
    with published("qrim_speed"):
        code = main()
    sys.exit(code)
