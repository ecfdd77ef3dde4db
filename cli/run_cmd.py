"""`substrates run METHOD`: run a method on the backend a hardware config selects."""

from __future__ import annotations

import argparse
from pathlib import Path

from .method_options import add_method_parser, flags_in_errors, given_parameters


def add_parser(commands: argparse._SubParsersAction) -> None:
    from ..adapters.methods import methods

    parser = commands.add_parser(
        "run",
        help="run a method; writes a run folder",
        description=(
            "Run a method on the backend a hardware config selects. Each run writes a "
            "folder with results.parquet, provenance.json and plots. Exit status: 0 done "
            "(a checking method: valid), 2 bad input, 3 not valid, 4 cannot tell, 130/143 "
            "interrupted."
        ),
    )
    choices = parser.add_subparsers(dest="method", required=True, metavar="METHOD")
    for method in methods().values():
        add_method_parser(choices, method)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from ..adapters.methods import get_method
    from ..adapters.runs.progress import Bars
    from ..adapters.runs.run import Run
    from ..verdicts import EXIT_CODES

    method = get_method(args.method)
    with flags_in_errors(method):
        parameters = method.validated(given_parameters(method, args))
        with Bars() as bars:
            folder = method.execute(parameters, Path(args.out), bars)
    run = Run.open(folder.path)
    print(method.report(run))
    if run.verdict is None:
        return 0
    print(run.verdict["line"])
    return EXIT_CODES[run.verdict["outcome"]]
