"""`substrates runs [FOLDER]`: the run folders there, with their method, status and age."""

from __future__ import annotations

import argparse
import json

from .tables import print_table


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "runs",
        help="list run folders: method, status, age; dead runs are shown as dead",
        description=(
            "List the run folders under FOLDER (default: runs), sweeps' included, oldest "
            "first. A run whose provenance says running but whose process is gone (killed, "
            "or its machine lost) is listed as dead: on this host by its process id and "
            "start time, on another by its heartbeat (touched every 10 s while it runs)."
        ),
    )
    parser.add_argument("folder", nargs="?", default="runs", help="where to look (default: runs)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from ..adapters.runs.listing import list_runs

    rows = list_runs(args.folder)
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
        return 0
    if not rows:
        print(f"no run folders under {args.folder}")
        return 0
    print_table(
        ("FOLDER", "METHOD", "STATUS", "AGE"),
        [(str(r.path), r.method, r.status, _age(r.age_s)) for r in rows],
    )
    return 0


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"
