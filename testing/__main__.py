"""`python -m substrates.testing BACKEND`: run the conformance suite against a backend."""

from __future__ import annotations

import argparse
import json
import sys

from . import run_conformance


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m substrates.testing",
        description=(
            "Run the conformance suite of a backend's substrate against it: the assertions "
            "every backend of that substrate must pass (a plugin's too)."
        ),
        epilog="Arguments after -- go to pytest, e.g. -- -x -k grover.",
    )
    parser.add_argument("backend", help="registry name, shipped config name or config file")
    parser.add_argument(
        "--options",
        default="{}",
        metavar="JSON",
        help="the backend's options as JSON (over a config's)",
    )
    argv = sys.argv[1:] if argv is None else argv
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    from ..errors import SubstratesError

    try:
        return run_conformance(args.backend, json.loads(args.options), rest)
    except (SubstratesError, json.JSONDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


sys.exit(main())
