"""Options every `substrates run METHOD` takes."""

from __future__ import annotations

import argparse

DEFAULT_HARDWARE = "aer_statevector"


def add_run_options(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """--hardware, --seed and --out."""
    parser.add_argument(
        "--hardware", default=DEFAULT_HARDWARE,
        help=f"hardware config file or shipped config name (default: {DEFAULT_HARDWARE})",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=None, help=seed_help)
    parser.add_argument("--out", default="runs", help="folder for run folders (default: runs)")
