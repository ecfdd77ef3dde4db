"""The studies' command line (`python -m substrates.studies --help`).

Exit status: 0 PASS, 3 FAIL, 4 CANNOT TELL (as `substrates run`'s verdicts: not valid,
cannot tell), 2 bad input, 1 a case that failed to run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import SubstratesError
from .claims import CLAIMS, every, get
from .declaration import Study, parse_settings
from .ledger import Ledger, Look
from .report import cell, looks_table, records, study_json, study_table, summary_table, write_block
from .runner import run_study

EXIT = {"PASS": 0, "FAIL": 3, "CANNOT TELL": 4}
HISTORY = "history.md"
"""The page beside --docs's that holds the table of looks (<!-- studies: looks -->)."""
RESULTS = Path("docs") / "studies"
"""Where results and the ledger go by default: the checkout's committed folder (run from
the repository's root), or anywhere --results names."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m substrates.studies",
        description=(
            "Validation studies: each declares its claim, goal and margin, its development "
            "and held-out cases (named before anything runs), the method and its baselines "
            "on the same inputs, and its metric. `run` runs the cases (resuming finished "
            "ones), records every look at a held-out case in the ledger, and ends with a "
            "verdict computed from the numbers: PASS (exit 0), FAIL (3), CANNOT TELL (4)."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="every study: claim, goal, cases and looks")
    show = commands.add_parser("show", help="one study's declaration and its looks, as JSON")
    show.add_argument("study", choices=sorted(CLAIMS))
    run = commands.add_parser("run", help="run a study's cases and judge it")
    run.add_argument("study", choices=sorted(CLAIMS))
    run.add_argument("--cases", default="", help="comma list of cases (default: every case)")
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a setting (a held-out case run under changed settings is development "
        "from then on)",
    )
    run.add_argument(
        "--executor",
        default=None,
        metavar="CONFIG",
        help="where cases run: cluster_local (a process pool), a Dask config, or this "
        "process (default)",
    )
    run.add_argument(
        "--again",
        action="store_true",
        help="run finished cases again instead of reading them back (a reproduction: "
        "the same sources and settings repeat their look)",
    )
    run.add_argument(
        "--smoke",
        action="store_true",
        help="the study's small cases only: a check that it runs, never a look or a result",
    )
    for sub in (run, commands.add_parser("summary", help="the table of every study's verdict")):
        sub.add_argument(
            "--results",
            type=Path,
            default=RESULTS,
            help=f"folder of results and the ledger (default: {RESULTS})",
        )
        sub.add_argument(
            "--docs",
            type=Path,
            default=None,
            metavar="PAGE",
            help="also write the table into PAGE's <!-- studies: … --> block (summary: the "
            "summary and each substrate's block, and the looks into history.md beside PAGE)",
        )
    ledger = commands.add_parser("ledger", help="the looks at held-out cases")
    ledger.add_argument("study", nargs="?", default=None)
    ledger.add_argument("--results", type=Path, default=RESULTS)
    return parser


def held_out_looks(looks: Iterable[Look], studies: Iterable[Study]) -> dict[str, int]:
    """Study → the most looks any of its held-out cases had (looks at development cases,
    such as those recorded before a case was moved, do not count)."""
    held = {(s.name, c.name) for s in studies for c in s.cases if c.role == "held-out"}
    found: dict[str, int] = {}
    for look in looks:
        if (look.study, look.case) in held:
            found[look.study] = max(found.get(look.study, 0), look.look)
    return found


def _list() -> int:
    studies = every()
    looks = held_out_looks(Ledger(RESULTS / "ledger.jsonl").looks(), studies)
    print("| study | substrate | claim | goal | held-out cases | development | looks |")
    print("|---|---|---|---|---|---|---|")
    for study in studies:
        held = [c.name for c in study.cases if c.role == "held-out"]
        development = [c.name for c in study.cases if c.role == "development"]
        print(
            f"| {study.name} | {study.substrate} | {cell(study.claim)} | "
            f"{cell(study.goal.text())} | "
            f"{', '.join(held) or '—'} | {', '.join(development) or '—'} | "
            f"{looks.get(study.name, 0)} |"
        )
    return 0


def _run(args: argparse.Namespace) -> int:
    study = get(args.study)
    try:
        settings = parse_settings(study, args.set)
        cases = [c for c in args.cases.split(",") if c]
    except ValueError as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return 2
    if args.smoke and args.docs:
        print("error: --smoke --docs: a smoke run's numbers are no result", file=sys.stderr)
        return 2
    report = run_study(
        study,
        args.results,
        cases=cases,
        settings=settings,
        executor=args.executor,
        smoke=args.smoke,
        again=args.again,
    )
    text = study_table(report)
    if args.docs:
        write_block(args.docs, study.name, text)
    print(text)
    return EXIT[report.judgement.outcome]


def _summary(args: argparse.Namespace) -> int:
    found = records(args.results)
    every_look = Ledger(args.results / "ledger.jsonl").looks()
    declared = every()
    looks = held_out_looks(every_look, declared)
    text = summary_table(found, looks, declared)
    if args.docs:
        write_block(args.docs, "summary", text)
        for substrate in sorted({s.substrate for s in declared}):
            write_block(
                args.docs,
                substrate,
                summary_table(
                    [r for r in found if r["substrate"] == substrate],
                    looks,
                    [s for s in declared if s.substrate == substrate],
                ),
            )
        write_block(args.docs.parent / HISTORY, "looks", looks_table(every_look))
    print(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` and run the command; the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            return _list()
        if args.command == "show":
            study = get(args.study)
            print(study_json(study))
            for look in Ledger(RESULTS / "ledger.jsonl").looks(study.name):
                print(
                    f"look {look.look} at {look.case}: {look.date[:10]} "
                    f"{(look.commit or '—')[:8]} {dict(look.result)}"
                )
            return 0
        if args.command == "run":
            return _run(args)
        if args.command == "summary":
            return _summary(args)
        for look in Ledger(args.results / "ledger.jsonl").looks(args.study):
            print(
                f"{look.study} {look.case} look {look.look}: {look.date[:10]} "
                f"{(look.commit or '—')[:8]} {look.origin} {dict(look.result)}"
            )
        return 0
    except (SubstratesError, OSError) as error:  # bad input, or a folder it cannot write
        print(f"error: {error}", file=sys.stderr)
        return 2
