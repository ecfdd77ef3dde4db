"""`substrates run METHOD`: run a method on the backend a hardware config selects."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .cml_cmd import add_cml_parser
from .crn_cmd import add_crn_parser
from .events_cmd import add_events_parser
from .hh_cmd import add_hh_parser
from .options import add_run_options
from .qrim_cmd import add_qrim_parser


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "run",
        help="run a method; writes a run folder",
        description=(
            "Run a method on the backend a hardware config selects. Each run writes a "
            "folder with results.parquet, provenance.json and plots."
        ),
    )
    methods = parser.add_subparsers(dest="method", required=True, metavar="METHOD")
    add_methods(methods)


def add_methods(methods: argparse._SubParsersAction) -> None:
    """The methods `substrates run` (and `substrates sweep`) knows."""
    sample = methods.add_parser(
        "sample",
        help="measure the circuits of a QASM 3/2 or QPY file and store the counts",
        description=(
            "Measure every circuit of a QASM 3, QASM 2 or QPY file on the configured backend. "
            "Without arguments: a 3-qubit Grover search shipped with the package, on the "
            "Aer simulator."
        ),
    )
    add_run_options(sample, seed_help="simulator and transpiler seed")
    sample.add_argument("--circuit", help="circuit file (default: the shipped grover3.qasm)")
    sample.add_argument("--shots", type=int, default=4096, help="shots per circuit (default 4096)")
    sample.add_argument(
        "--no-exact", dest="exact", action="store_false",
        help="skip exact probabilities on backends that can compute them",
    )  # fmt: skip
    sample.set_defaults(handler=handle_sample)
    add_qrim_parser(methods)
    add_cml_parser(methods)
    add_crn_parser(methods)
    add_events_parser(methods)
    add_hh_parser(methods)


def sample_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_sample's arguments from the command line (all but out and echo)."""
    from substrates.datasets.quantum.circuit_files import example_path

    return {"hardware": args.hardware, "circuit_file": args.circuit or example_path(),
            "shots": args.shots, "seed": args.seed, "exact": args.exact}  # fmt: skip


def handle_sample(args: argparse.Namespace) -> int:
    from substrates.adapters.runs import run_sample

    folder = run_sample(
        **sample_arguments(args), out=args.out, echo=lambda line: print(line, file=sys.stderr)
    )
    print_summary(folder)
    return 0


def print_summary(folder: object) -> None:
    """The three most frequent outcomes of each circuit, and where the files are."""
    table = folder.read_table("results.parquet").to_pylist()  # type: ignore[attr-defined]
    for name in dict.fromkeys(row["circuit"] for row in table):
        rows = [r for r in table if r["circuit"] == name][:3]
        shown = ", ".join(f"{r['bitstring']}: {r['count']}/{r['shots']}" for r in rows)
        print(f"{name}: {shown}")
    print(f"run folder: {folder.path}")  # type: ignore[attr-defined]
