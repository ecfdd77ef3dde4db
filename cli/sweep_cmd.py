"""`substrates sweep METHOD`: a grid of runs on a local pool or a Dask cluster, resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(commands: argparse._SubParsersAction) -> None:
    from ..adapters.methods import methods

    parser = commands.add_parser(
        "sweep",
        help="run a method over a grid of parameters and seeds; resumable",
        description=(
            "Run METHOD once per item of a grid (the product of the listed parameter values, "
            "times the seeds) on the executor a config selects: this machine "
            "(cluster_local) or a Dask cluster (cluster_dask, or a copy with a scheduler "
            "address). Parameters are the options of 'substrates run METHOD' (their long "
            "names without dashes). Every item is a run with its own run folder; each "
            "finished item is committed as a Parquet fragment before it counts, and OUT/"
            "results.parquet holds them all. Rerun the same command to resume after an "
            "interruption: nothing finished is recomputed; failed items are retried only "
            "with --retry-failed. Exit status: 0 done, 1 some items failed, 2 bad input; a "
            "checking method (crn-validate) adds each item's verdict to the table and exits "
            "3 if any is not valid, else 4 if any cannot tell."
        ),
        epilog="Grid file: parameters: {uncertainty: [4, 8]}  seeds: 3  fixed: {steps: 500}",
    )
    parser.add_argument("method", choices=list(methods()), help="the method to sweep")
    parser.add_argument("--grid", required=True, metavar="GRID.yaml", help="the grid file")
    parser.add_argument(
        "--executor",
        default="cluster_local",
        metavar="CONFIG",
        help="executor config file or shipped name (default cluster_local)",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the sweep's folder")
    parser.add_argument(
        "--retry-failed", action="store_true", help="run the items that failed before again"
    )
    parser.set_defaults(handler=handle_sweep)


def handle_sweep(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..adapters.sweeps.grid import load_grid
    from ..adapters.sweeps.sweep_run import run_sweep

    grid, items = load_grid(args.grid, args.method)
    bar = tqdm(
        total=len(items), desc=f"sweep {args.method}", unit="item", file=sys.stderr, disable=None
    )

    def progress(done: int, running: int, failed: int) -> None:
        bar.update(done - bar.n)
        bar.set_postfix(running=running, failed=failed)

    try:
        report = run_sweep(
            args.method,
            items,
            executor=args.executor,
            out=args.out,
            grid=grid.model_dump(mode="json"),
            retry_failed=args.retry_failed,
            progress=progress,
            where=args.grid,
        )
    except KeyboardInterrupt:
        bar.close()
        print(
            f"interrupted; every finished item is kept in {args.out}: rerun the same command "
            "to resume",
            file=sys.stderr,
        )
        return 130
    bar.close()
    done = report.items - len(report.failed)
    print(
        f"{done}/{report.items} items done ({report.already_done} before this run, "
        f"{report.executed} executed, {report.collected} collected from recorded jobs, "
        f"{report.reused} from completed runs); {len(report.failed)} failed"
    )
    for item, error in sorted(report.failed.items()):
        print(f"  failed {item}: {error}")
    if report.failed:
        print("rerun with --retry-failed to try the failed items again")
    results = report.folder.path / "results.parquet"
    print(f"results: {results}")
    if report.failed:
        return 1
    return _verdicts(results)


def _verdicts(results: Path) -> int:
    """A checking method's sweep: how many items were valid, not valid, cannot tell; the
    exit status of the gravest (EXIT_CODES), 0 for other methods."""
    import pyarrow.parquet as pq

    from ..verdicts import EXIT_CODES, FAILURES

    if not results.is_file() or "verdict" not in pq.read_schema(results).names:
        return 0
    items = pq.read_table(results, columns=["item", "verdict"]).to_pylist()
    outcomes = {row["item"]: row["verdict"] for row in items}
    counts = {o: list(outcomes.values()).count(o) for o in EXIT_CODES}
    print("verdicts: " + ", ".join(f"{n} {o}" for o, n in counts.items()))
    if not outcomes:
        return EXIT_CODES["cannot tell"]
    for outcome in FAILURES:
        if counts[outcome]:
            return EXIT_CODES[outcome]
    return EXIT_CODES["valid"]
