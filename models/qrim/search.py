"""Dürr–Høyer minimum finding with BBHT's Grover search for an unknown number of marked items.

The search is a generator: it yields (threshold index, Grover iterations) requests and is
sent back the index a measurement returned. It learns only from those measurements and from
`query(u)`, one classical evaluation of member u, which the caller counts. This lets one
scheduler run many searches at once and batch their circuits into one backend call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

import numpy as np

GROWTH = 6 / 5
"""BBHT's λ: the iteration range grows by this factor after each failed attempt."""

PATIENCE = 1.0
"""After this many √N oracle applications without improvement, confirm (CONFIRM_MARKED)
instead of searching on: the BBHT loop's last stretch, which only shows that no better
member is left, is what made the old rule (stop after 4.5 √N) cost 6.3 √N at N = 1024."""

MIN_PATIENCE = 8
"""…and never fewer than this many (at |U| < 64, √N alone is too short a search: the
exact-minimum rate fell to 93% at N = 2 and 98.8% at N = 4 and 8)."""

CONFIRM_MARKED = (1, 2, 3)
"""The confirmation runs Grover with the iteration count that is optimal for exactly k
marked members, for each k here in turn; a better member found resumes the search, none
found ends it. If better members remain they are few (the loop found none in √N
applications), and each of these counts finds 1 to 4 of them with high probability.
PATIENCE and CONFIRM_MARKED were chosen on a classical simulation of the measurement
statistics (seed 1000, 2,000 normal tables at N = 2 … 1024), never on the benchmark's
tables: mean 3.2, 3.8, 4.4 √N at N = 64, 256, 1024 with the exact minimum in ≥ 99.85%,
and ≥ 99.9% at N = 2 … 32. Counts k ≥ N are skipped."""


def optimal_iterations(num_items: int, marked: int) -> int:
    """Grover iterations that maximise the success probability for `marked` of `num_items`:
    round(π / (4 asin √(k/N)) − ½)."""
    return max(0, round(math.pi / (4 * math.asin(math.sqrt(marked / num_items))) - 0.5))


@dataclass(frozen=True)
class Request:
    """Run the Grover circuit that marks V(u) < V(threshold_index), `iterations` times."""

    threshold_index: int
    iterations: int


@dataclass(frozen=True)
class Step:
    """One measured circuit of a search: the request, the index measured, and the phase
    ('search': iterations drawn by BBHT's schedule; 'confirm': the count optimal for
    `marked` members)."""

    threshold_index: int
    iterations: int
    measured: int
    phase: str
    marked: int = 0
    value: float = float("nan")
    """The measured member's value, as queried."""


@dataclass(frozen=True)
class SearchOutcome:
    """What one Dürr–Høyer run found, what it cost, and its trace.

    start: the member it started from (drawn uniformly) and start_value its value; steps:
    every measured circuit in order. `replay_search` recomputes the outcome from these.
    """

    index: int
    oracle_queries: int
    classical_queries: int
    circuits: int
    start: int = 0
    start_value: float = float("nan")
    steps: tuple[Step, ...] = ()


def query_budget(num_items: int) -> int:
    """Dürr–Høyer's stopping rule: 22.5 √N + 1.4 lg² N oracle applications."""
    return math.ceil(22.5 * math.sqrt(num_items) + 1.4 * math.log2(num_items) ** 2)


def durr_hoyer(
    num_items: int,
    query: Callable[[int], float],
    rng: np.random.Generator,
    patience: float = PATIENCE,
    *,
    start: int | None = None,
    draw: Callable[[int], int] | None = None,
    confirm: Sequence[int] = CONFIRM_MARKED,
    min_patience: int = MIN_PATIENCE,
) -> Generator[Request, int, SearchOutcome]:
    """One minimum-finding run over indices 0..num_items-1.

    BBHT's randomized search below the best value found so far; after `patience` · √N
    (at least MIN_PATIENCE) oracle applications without improvement, one Grover run at the
    optimal count for each k in CONFIRM_MARKED: a better member found resumes the search,
    none ends it.
    Dürr–Høyer's budget caps the whole run. Each distinct member is evaluated classically
    once; the search learns only from measured indices and those values.

    start and draw (iterations in [0, bound)) replace the rng's choices; `replay_search`
    passes the recorded ones. confirm and min_patience replace CONFIRM_MARKED and
    MIN_PATIENCE (`benchmarks/qrim_search_rules.py` compares rules).
    """
    budget = query_budget(num_items)
    known: dict[int, float] = {}
    steps: list[Step] = []
    draw = draw or (lambda bound: int(rng.integers(0, bound)))

    def value(index: int) -> float:
        if index not in known:
            known[index] = query(index)
        return known[index]

    best_index = int(rng.integers(num_items)) if start is None else start
    first = best_index
    best = value(best_index)
    oracle = since_improvement = 0
    m = 1.0
    while oracle < budget:
        if since_improvement >= max(patience * math.sqrt(num_items), min_patience):
            for marked in (k for k in confirm if k < num_items):
                iterations = optimal_iterations(num_items, marked)
                candidate = yield Request(best_index, iterations)
                steps.append(
                    Step(best_index, iterations, candidate, "confirm", marked, value(candidate))
                )
                oracle += iterations
                if value(candidate) < best:
                    best_index, best, m, since_improvement = candidate, value(candidate), 1.0, 0
                    break
            else:
                break
            continue
        iterations = draw(math.ceil(m))
        candidate = yield Request(best_index, iterations)
        steps.append(Step(best_index, iterations, candidate, "search", 0, value(candidate)))
        oracle += iterations
        since_improvement += max(iterations, 1)
        if value(candidate) < best:
            best_index, best, m, since_improvement = candidate, value(candidate), 1.0, 0
        else:
            m = min(GROWTH * m, math.sqrt(num_items))
    return SearchOutcome(
        best_index, oracle, len(known), len(steps), first, known[first], tuple(steps)
    )


def replay_search(
    num_items: int,
    query: Callable[[int], float] | None,
    start: int,
    steps: Sequence[Step],
    patience: float = PATIENCE,
    start_value: float = float("nan"),
) -> SearchOutcome:
    """Run the search again from its trace: the recorded start, iteration draws and measured
    indices, and `query` (None: the values recorded in the trace, `start_value` for the
    start, so that a run folder alone can be audited). Raises ValueError where the trace
    departs from what the search would have asked (a draw outside BBHT's range, a request
    for another threshold or count, a trace longer or shorter than the run): an audit that
    the outcome follows from the measurements and the queried values alone."""
    if query is None:
        values = {start: start_value, **{step.measured: step.value for step in steps}}
        query = values.__getitem__
    recorded = iter(steps)
    pending: list[Step] = []

    def draw(bound: int) -> int:
        step = next(recorded, None)
        if step is None or step.phase != "search" or not 0 <= step.iterations < bound:
            raise ValueError(f"trace departs from the search: expected a draw below {bound}")
        pending.append(step)
        return step.iterations

    search = durr_hoyer(
        num_items, query, np.random.default_rng(0), patience, start=start, draw=draw
    )
    try:
        request = next(search)
        while True:
            step = pending.pop() if pending else next(recorded, None)
            if step is None or (step.threshold_index, step.iterations) != (
                request.threshold_index,
                request.iterations,
            ):
                raise ValueError(f"trace departs from the search at request {request}")
            request = search.send(step.measured)
    except StopIteration as stop:
        if next(recorded, None) is not None:
            raise ValueError("trace continues after the search ended") from None
        return stop.value
