"""`substrates backends`: every registered backend and whether it can run here."""

from __future__ import annotations

import argparse
import json

from .tables import print_table


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "backends",
        help="list backends and whether each can run here",
        description=(
            "List every registered backend with its substrate, tier (simulator, gpu, "
            "hardware) and status: 'usable', or why not (missing package with the pip "
            "command, no CUDA device, no credentials)."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument("--substrate", help="only this substrate's backends, e.g. quantum")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from ..backends.registry import list_backends

    rows = list_backends(args.substrate)
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
        return 0
    print_table(
        ("NAME", "SUBSTRATE", "TIER", "STATUS"),
        [(r.name, r.substrate, r.tier or "?", r.reason) for r in rows],
    )
    return 0
