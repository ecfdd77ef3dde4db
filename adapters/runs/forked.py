"""A function mapped over items in forked worker processes, one core each.

hh-fit observes every sorted unit of a recording before it fits any (numpy and scipy over
the whole recording: about 12 s a unit on a 110-cell, 512-electrode session). The units
are independent, so the observations run in one process per core. Forked processes share
the parent's recording (copy on write) instead of receiving it; only each item and its
result cross between processes. Threads do not do here: with one thread observing while
another fitted, each fit took 50–65 s instead of 18 s (30-cell session; the GIL held by
observation's Python code, or JAX's threads left without cores).
"""

from __future__ import annotations

import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_task: Callable[[Any], Any] | None = None
"""The function being mapped; set before the workers fork, so they inherit it."""


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def forked_map(function: Callable[[T], R], items: Iterable[T], workers: int = 0) -> list[R]:
    """[function(item) for item in items], in order, in `workers` forked processes (0:
    one per usable core), each limited to one BLAS thread so that the workers do not
    compete for the cores. Items and results must pickle; `function` need not (it is
    inherited by the fork). `function` must not use JAX or a GPU: neither survives a fork
    (numpy, scipy and reading files do). With one worker, one item, or where processes cannot fork
    (Windows), the items are mapped here, in this process. An error in a worker is raised
    here.

    >>> forked_map(lambda x: x * x, range(5), workers=2)
    [0, 1, 4, 9, 16]
    """
    global _task
    listed = list(items)
    workers = min(workers or usable_cores(), len(listed))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [function(item) for item in listed]
    if _task is not None:
        raise RuntimeError("forked_map is not reentrant: one map at a time per process")
    _task = function
    try:
        with warnings.catch_warnings():  # JAX warns at every fork; the workers never use it
            warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning)
            pool = multiprocessing.get_context("fork").Pool(workers, _one_blas_thread)
        with pool:
            return pool.map(_run, listed, chunksize=1)
    finally:
        _task = None


def _one_blas_thread() -> None:
    """In each worker: BLAS and OpenMP pools of one thread (the workers fill the cores)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # without threadpoolctl the workers share the cores less evenly
        return
    threadpool_limits(1)


def _run(item: Any) -> Any:
    assert _task is not None, "forked_map sets the task before forking"
    return _task(item)
