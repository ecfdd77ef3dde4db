"""Sweep speed-up: one CPU-bound QRIM sweep (|U| = 64 on FrozenLake 4x4, --uncertainty;
--items seeds) run end to end with `substrates sweep` on one worker and on two, for the
local process pool and a Dask LocalCluster; the ratio is against one worker of the same
executor, in one run. Then planning: a grid of --plan items expanded, every item validated
by the method and its inputs checked, as `substrates sweep` does before running anything
(goal: 10^5 items in under 10 s; the version that parsed each item with argparse took
174 s for 10^4).

    python benchmarks/sweeps.py --items 8 --plan 100000
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from publish import published
from timing import arguments

print = functools.partial(print, flush=True)  # rows appear as they are measured


def timed_sweep(folder: Path, executor: str, workers: int, items: int, models: int) -> float:
    """Seconds for `substrates sweep qrim` over `items` seeds of an uncertainty set of
    `models`, from a fresh output folder."""
    tag = f"{executor}-{workers}"
    grid = folder / "grid.yaml"
    grid.write_text(f"parameters: {{uncertainty: [{models}]}}\nseeds: {items}\n")
    config = folder / f"{tag}.yaml"
    config.write_text(f"executor: {executor}\noptions: {{workers: {workers}}}\n")
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "substrates",
            "sweep",
            "qrim",
            "--grid",
            str(grid),
            "--executor",
            str(config),
            "--out",
            str(folder / tag),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=8, help="seeds in the sweep (default 8)")
    parser.add_argument("--plan", type=int, default=100_000, help="items to plan (default 10^5)")
    parser.add_argument("--uncertainty", type=int, default=64, help="|U| of each item")
    args = arguments(parser, items=2, plan=1000, uncertainty=4)
    print(f"| executor | workers | seconds for {args.items} items | speed-up vs 1 worker |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as root:
        for executor in ("local", "dask"):
            one = None
            for workers in (1, 2):
                seconds = timed_sweep(Path(root), executor, workers, args.items, args.uncertainty)
                one = one or seconds
                print(f"| {executor} | {workers} | {seconds:.1f} | {one / seconds:.2f}x |")
        print(
            f"\nplanning {args.plan:,} items (expand, validate, check inputs): "
            f"{planning_s(Path(root), args.plan):.1f} s"
        )


def planning_s(folder: Path, items: int) -> float:
    """Seconds to plan a QRIM grid of `items` items as the sweep driver does."""
    from substrates.adapters.methods import get_method
    from substrates.adapters.sweeps.grid import fingerprint, load_grid
    from substrates.adapters.sweeps.sweep_run import check_inputs

    grid = folder / "plan.yaml"
    grid.write_text(f"parameters: {{uncertainty: [16, 64]}}\nseeds: {items // 2}\n")
    start = time.perf_counter()
    _, planned = load_grid(grid, "qrim")
    method = get_method("qrim")
    validated = [method.validated(item.parameters) for item in planned]
    check_inputs(method, validated)
    fingerprint("qrim", planned)
    return time.perf_counter() - start


if __name__ == "__main__":
    with published("sweeps"):
        main()
