"""The search's posterior against brute force over every ordering of the members.

`durr_hoyer` tracks only the distribution of t, the number of members better than the
threshold, from what each measurement said: which member, and whether it was better.
Here the same belief is computed the long way: every ranking of N members is equally
likely a priori; each is weighted by the chance of every measured index under it (a better
member: sin²((2r + 1)θₜ)/t; another: cos²((2r + 1)θₜ)/(N − t)), and by zero where the
ranking disagrees with a measurement's verdict. P(the threshold is the minimum) summed
over rankings must equal 1 − doubt at every step. (Where a new member's value falls among
earlier thresholds the search does not use: a coarser conditioning, still exact.)
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from substrates.models.qrim.search import Step, durr_hoyer


def _measure(rank: np.ndarray, order: np.ndarray, iterations: int, threshold: int, rng) -> int:
    """One ideal Grover measurement: a better member with probability sin²((2r+1)θ)."""
    size = len(rank)
    better = int(rank[threshold])
    theta = math.asin(math.sqrt(better / size))
    hit = better and rng.random() < math.sin((2 * iterations + 1) * theta) ** 2
    return int(order[rng.integers(better) if hit else better + rng.integers(size - better)])


def _run(values: np.ndarray, seed: int) -> tuple[int, list[Step], float]:
    rng = np.random.default_rng(seed)
    order = np.argsort(values)
    rank = np.empty(len(values), dtype=int)
    rank[order] = np.arange(len(values))
    search = durr_hoyer(len(values), values.__getitem__, rng)
    request = next(search)
    try:
        while True:
            request = search.send(
                _measure(rank, order, request.iterations, request.threshold_index, rng)
            )
    except StopIteration as stop:
        return stop.value.start, list(stop.value.steps), stop.value.doubt


def _brute_force_doubt(values: np.ndarray, start: int, history: list[Step]) -> float:
    """P(some member beats the threshold | the history), over all N! rankings."""
    size = len(values)
    threshold = min({start, *(step.measured for step in history)}, key=values.__getitem__)
    weight_min = weight_all = 0.0
    for ranking in itertools.permutations(range(size)):  # ranking[u]: u's rank, 0 = best
        weight = 1.0
        for step in history:
            better = ranking[step.threshold_index]  # members better than the threshold
            theta = math.asin(math.sqrt(better / size))
            hit = values[step.measured] < values[step.threshold_index]
            if hit != (ranking[step.measured] < better):
                weight = 0.0  # this ranking contradicts the measurement's verdict
            elif hit:
                weight *= math.sin((2 * step.iterations + 1) * theta) ** 2 / better
            else:
                weight *= math.cos((2 * step.iterations + 1) * theta) ** 2 / (size - better)
        weight_all += weight
        weight_min += weight * (ranking[threshold] == 0)
    return 1 - weight_min / weight_all


@pytest.mark.parametrize("seed", range(6))
def test_doubt_equals_brute_force_over_rankings(seed: int) -> None:
    values = np.random.default_rng(100 + seed).normal(size=6)
    start, steps, final = _run(values, seed)
    assert len(steps) >= 2
    for k, step in enumerate(steps):
        assert step.doubt == pytest.approx(_brute_force_doubt(values, start, steps[:k]), abs=1e-9)
    assert final == pytest.approx(_brute_force_doubt(values, start, steps), abs=1e-9)


def test_a_search_that_has_evaluated_every_member_knows_the_minimum() -> None:
    values = np.array([0.3, -1.2])
    start, steps, final = _run(values, seed=0)
    assert final == 0.0
    assert len({start, *(s.measured for s in steps)}) == 2


def test_ends_at_the_minimum_as_often_as_its_tolerance_promises() -> None:
    """Ideal measurement statistics, 3,000 tables of 16: at most 0.1% of searches may end
    away from the minimum in expectation; 0.4% (12) would be a 1-in-10⁵ fluke."""
    rng = np.random.default_rng(21)
    missed = 0
    for seed in range(3000):
        values = rng.normal(size=16)
        start, steps, _ = _run(values, seed)
        known = {start, *(s.measured for s in steps)}
        missed += min(values[u] for u in known) != values.min()
    assert missed <= 12
