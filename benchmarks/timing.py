"""Wall-clock timing and the `--smoke` mode shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable


def best(call: Callable[[], object], repeats: int, warm: bool = False) -> float:
    """Best wall time (s) of `repeats` calls, after one untimed call when `warm`."""
    if warm:
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def arguments(parser: argparse.ArgumentParser, **smoke: object) -> argparse.Namespace:
    """The script's arguments, with `--smoke` added: the tiny sizes in `smoke` (argument
    destination -> value) replace the given ones, so the whole script runs in seconds and
    prints every table. The test suite runs each script so; its numbers mean nothing, and
    `published` refuses to write them into the docs."""
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes (seconds): check that the script runs and prints "
        "its tables; the numbers mean nothing",
    )
    args = parser.parse_args()
    if args.smoke:
        for name, value in smoke.items():
            if not hasattr(args, name):
                raise AttributeError(f"--smoke sets {name!r}, which the script does not take")
            setattr(args, name, value)
    return args
