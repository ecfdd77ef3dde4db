"""`substrates sweep METHOD`: a grid of runs on a local pool or a Dask cluster, resumable."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import cml_cmd, crn_cmd, events_cmd, qrim_cmd, run_cmd

ARGUMENTS = {
    "qrim": qrim_cmd.run_arguments,
    "crn-validate": crn_cmd.run_arguments,
    "cml-reconstruct": cml_cmd.run_arguments,
    "sample": run_cmd.sample_arguments,
    "event-layers": events_cmd.run_arguments,
}
"""Each sweepable method's run arguments from its `substrates run` options."""


def add_parser(commands: argparse._SubParsersAction) -> None:
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
            "with --retry-failed."
        ),
        epilog="Grid file: parameters: {uncertainty: [4, 8]}  seeds: 3  fixed: {steps: 500}",
    )
    parser.add_argument("method", choices=sorted(ARGUMENTS), help="the method to sweep")
    parser.add_argument("--grid", required=True, metavar="GRID.yaml", help="the grid file")
    parser.add_argument(
        "--executor", default="cluster_local", metavar="CONFIG",
        help="executor config file or shipped name (default cluster_local)",
    )  # fmt: skip
    parser.add_argument("--out", required=True, metavar="DIR", help="the sweep's folder")
    parser.add_argument(
        "--retry-failed", action="store_true", help="run the items that failed before again"
    )
    parser.set_defaults(handler=handle_sweep)


class _Refusing(argparse.ArgumentParser):
    """A method's parser that raises instead of exiting, to check grid values."""

    def error(self, message: str) -> None:  # type: ignore[override]
        from substrates.backends.errors import SubstratesError

        raise SubstratesError(message)


def method_parser(method: str) -> argparse.ArgumentParser:
    root = _Refusing(prog="substrates run")
    methods = root.add_subparsers(dest="method", parser_class=_Refusing)
    run_cmd.add_methods(methods)
    return methods.choices[method]


def resolve(method: str, parameters: dict[str, Any], grid: str) -> dict[str, Any]:
    """The method's run arguments for one item: its options parsed as on the command line."""
    from substrates.backends.errors import SubstratesError

    parser = method_parser(method)
    actions = {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}
    settable = sorted({*actions, *(d for d in parser._defaults if d != "handler")} - {"out"})
    argv, direct = [], {}
    for name, value in parameters.items():
        if name not in settable:
            raise SubstratesError(f"{grid}: {name!r} is not an option of {method}; options: "
                                  f"{', '.join(settable)}")  # fmt: skip
        action = actions.get(name)
        if action is None:
            direct[name] = value
        elif action.nargs == 0:  # a flag
            if bool(value) != bool(action.default):
                argv.append(action.option_strings[0])
        else:
            argv += [action.option_strings[0], str(value)]
    try:
        args = parser.parse_args(argv)
    except SubstratesError as error:
        raise SubstratesError(f"{grid}: item {parameters}: {error}") from None
    for name, value in direct.items():
        setattr(args, name, value)
    return ARGUMENTS[method](args)


def handle_sweep(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from substrates.adapters.sweeps.grid import load_grid
    from substrates.adapters.sweeps.sweep_run import run_sweep

    grid, items = load_grid(args.grid, args.method)
    arguments = {item.id: resolve(args.method, item.parameters, args.grid) for item in items}
    bar = tqdm(total=len(items), desc=f"sweep {args.method}", unit="item", file=sys.stderr,
               disable=None)  # fmt: skip

    def progress(done: int, running: int, failed: int) -> None:
        bar.update(done - bar.n)
        bar.set_postfix(running=running, failed=failed)

    try:
        report = run_sweep(
            args.method, items, arguments, executor=args.executor, out=args.out,
            grid=grid.model_dump(mode="json"), retry_failed=args.retry_failed, progress=progress,
        )  # fmt: skip
    except KeyboardInterrupt:
        bar.close()
        print(f"interrupted; every finished item is kept in {args.out}: rerun the same command "
              "to resume", file=sys.stderr)  # fmt: skip
        return 130
    bar.close()
    done = report.items - len(report.failed)
    print(f"{done}/{report.items} items done ({report.already_done} before this run, "
          f"{report.executed} executed, {report.collected} collected from recorded jobs, "
          f"{report.reused} from completed runs); {len(report.failed)} failed")  # fmt: skip
    for item, error in sorted(report.failed.items()):
        print(f"  failed {item}: {error}")
    if report.failed:
        print("rerun with --retry-failed to try the failed items again")
    print(f"results: {report.folder.path / 'results.parquet'}")
    return 0 if not report.failed else 1
