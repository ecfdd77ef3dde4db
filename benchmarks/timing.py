"""Wall-clock timing shared by the benchmark scripts."""

from __future__ import annotations

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
