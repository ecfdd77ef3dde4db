"""What the commands that run with one progress bar and print a summary share."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def run_with_bar(run: Callable[..., tuple[Any, dict[str, Any]]], arguments: dict[str, Any],
                 desc: str, unit: str) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """run(**arguments, progress=...) with a tqdm bar on stderr (off when not a terminal)
    that follows progress(done, total); the bar is closed however run ends."""
    from tqdm import tqdm

    bar = tqdm(desc=desc, unit=unit, file=sys.stderr, disable=None)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        return run(**arguments, progress=progress)
    finally:
        bar.close()


def print_summary(folder: Any, summary: dict[str, Any]) -> None:
    """One line per summary entry (floats to 3 decimals), then the run folder."""
    for key, value in summary.items():
        print(f"{key:<40} {value:.3f}" if isinstance(value, float) else f"{key:<40} {value}")
    print(f"run folder: {folder.path}")
