"""Dürr–Høyer minimum finding with BBHT's Grover search for an unknown number of marked items.

The search is a generator: it yields (threshold index, Grover iterations) requests and is
sent back the index a measurement returned. It learns only from those measurements and from
`query(u)`, one classical evaluation of member u, which the caller counts. This lets one
scheduler run many searches at once and batch their circuits into one backend call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass

import numpy as np

GROWTH = 6 / 5
"""BBHT's λ: the iteration range grows by this factor after each failed attempt."""

PATIENCE = 4.5
"""Stop after this many √N oracle applications without improvement: BBHT finds one of
M ≥ 1 marked items within an expected (9/2)·√(N/M) of them (BBHT, Theorem 3)."""


@dataclass(frozen=True)
class Request:
    """Run the Grover circuit that marks V(u) < V(threshold_index), `iterations` times."""

    threshold_index: int
    iterations: int


@dataclass(frozen=True)
class SearchOutcome:
    """What one Dürr–Høyer run found, and what it cost."""

    index: int
    oracle_queries: int
    classical_queries: int
    circuits: int


def query_budget(num_items: int) -> int:
    """Dürr–Høyer's stopping rule: 22.5 √N + 1.4 lg² N oracle applications."""
    return math.ceil(22.5 * math.sqrt(num_items) + 1.4 * math.log2(num_items) ** 2)


def durr_hoyer(
    num_items: int,
    query: Callable[[int], float],
    rng: np.random.Generator,
    patience: float = PATIENCE,
) -> Generator[Request, int, SearchOutcome]:
    """One minimum-finding run over indices 0..num_items-1.

    Stops when `patience` · √N oracle applications have passed since the last improvement,
    or at Dürr–Høyer's budget. Each distinct member is evaluated classically once.
    """
    budget = query_budget(num_items)
    known: dict[int, float] = {}

    def value(index: int) -> float:
        if index not in known:
            known[index] = query(index)
        return known[index]

    best_index = int(rng.integers(num_items))
    best = value(best_index)
    oracle = circuits = since_improvement = 0
    m = 1.0
    while oracle < budget and since_improvement < patience * math.sqrt(num_items):
        iterations = int(rng.integers(0, math.ceil(m)))
        candidate = yield Request(best_index, iterations)
        oracle += iterations
        since_improvement += max(iterations, 1)
        circuits += 1
        if value(candidate) < best:
            best_index, best, m, since_improvement = candidate, value(candidate), 1.0, 0
        else:
            m = min(GROWTH * m, math.sqrt(num_items))
    return SearchOutcome(best_index, oracle, len(known), circuits)
