"""adapters/runs/forked.py: a function mapped in forked processes gives what the plain map
gives, in order, from other processes, with errors raised in the caller."""

from __future__ import annotations

import os

import numpy as np
import pytest

from substrates.adapters.runs.forked import forked_map

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="processes cannot fork here")


def test_same_results_in_order_from_other_processes() -> None:
    shared = np.arange(1000.0)  # inherited by the fork, never pickled

    def work(k: int) -> tuple[float, int]:  # a closure: it would not pickle
        return float(shared[k::7].sum()), os.getpid()

    got = forked_map(work, range(20), workers=2)
    assert [value for value, _ in got] == [float(shared[k::7].sum()) for k in range(20)]
    assert os.getpid() not in {pid for _, pid in got}


def test_one_worker_maps_here() -> None:
    assert forked_map(lambda _: os.getpid(), range(3), workers=1) == [os.getpid()] * 3


def test_an_error_in_a_worker_is_raised_in_the_caller() -> None:
    def work(k: int) -> int:
        if k == 3:
            raise ValueError(f"item {k} is bad")
        return k

    with pytest.raises(ValueError, match="item 3 is bad"):
        forked_map(work, range(6), workers=2)
    assert forked_map(lambda k: k, range(4), workers=2) == [0, 1, 2, 3]  # usable again
