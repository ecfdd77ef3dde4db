"""Dürr–Høyer minimum finding, each Grover count chosen on the exact posterior of what is left.

The search is a generator: it yields (threshold index, Grover iterations) requests and is
sent back the index a measurement returned. It learns only from those measurements and from
`query(u)`, one classical evaluation of member u, which the caller counts. This lets one
scheduler run many searches at once and batch their circuits into one backend call.

Dürr and Høyer search below the best value found so far and move the threshold to every
better member measured; BBHT's randomized schedule draws the Grover counts and a budget
ends the run. Here the counts and the end come from t, the number of members better than
the threshold, whose distribution the search knows exactly on an ideal device: the first
threshold is drawn uniformly, so t is uniform on 0…N−1; Grover amplifies the t marked
members alike, so a better member measured leaves t′ uniform on 0…t−1; and a run of r
iterations that measures no better member multiplies P(t) by cos²((2r + 1)θₜ), θₜ =
asin √(t/N), and by the chance of measuring that very member (the better ones are among
the members not yet evaluated). No assumption on the values enters; the belief uses which
member each measurement returned and whether it was better, not where a new member's
value falls among earlier thresholds (a coarser conditioning, so still exact —
`tests/unit/qrim/test_search_posterior.py` checks it against every ranking of 6 members).
Each circuit uses the count r ∈ [0, ⌈π/4·√N⌉] that removes the most posterior mass from
t ≥ 1 per circuit (r oracle applications plus the state preparation and measurement: cost
r + 1); the search stops once P(t = 0) ≥ 1 − TOLERANCE, so it ends away from the minimum with
probability at most TOLERANCE on an ideal device.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

import numpy as np

TOLERANCE = 1e-3
"""The search stops when the posterior probability that a better member is left is below
this: at most 0.1% of searches end away from the minimum on an ideal device."""

TABULATED_ITEMS = 1 << 16
"""Up to this |U| the hit probabilities of every (count, t) are kept in one table per |U|
((⌈π/4·√N⌉ + 1) · N floats: 106 MB at 65,536); above it they are computed per circuit."""


@dataclass(frozen=True)
class Request:
    """Run the Grover circuit that marks V(u) < V(threshold_index), `iterations` times."""

    threshold_index: int
    iterations: int


@dataclass(frozen=True)
class Step:
    """One measured circuit of a search: the request, the index measured, and the
    measured member's value as queried. `doubt` is the posterior probability, before the
    circuit ran, that some member is better than the threshold."""

    threshold_index: int
    iterations: int
    measured: int
    value: float = float("nan")
    doubt: float = float("nan")


@dataclass(frozen=True)
class SearchOutcome:
    """What one Dürr–Høyer run found, what it cost, and its trace.

    start: the member it started from (drawn uniformly) and start_value its value; steps:
    every measured circuit in order; doubt: the posterior probability, when it stopped,
    that a better member was left. `replay_search` recomputes the outcome from these.
    """

    index: int
    oracle_queries: int
    classical_queries: int
    circuits: int
    start: int = 0
    start_value: float = float("nan")
    steps: tuple[Step, ...] = ()
    doubt: float = float("nan")


def query_budget(num_items: int) -> int:
    """Dürr–Høyer's cap on a run: 22.5 √N + 1.4 lg² N oracle applications."""
    return math.ceil(22.5 * math.sqrt(num_items) + 1.4 * math.log2(num_items) ** 2)


def longest_count(num_items: int) -> int:
    """The largest Grover count a search asks for: ⌈π/4·√N⌉ (optimal for one marked)."""
    return math.ceil(math.pi / 4 * math.sqrt(num_items))


@functools.lru_cache(maxsize=4)
def _angles(num_items: int) -> np.ndarray:
    """θₜ = asin √(t/N) for t = 0…N−1."""
    return np.arcsin(np.sqrt(np.arange(num_items) / num_items))


@functools.lru_cache(maxsize=4)
def _hit_table(num_items: int) -> np.ndarray:
    """sin²((2r + 1)θₜ): a better member measured after r iterations when t are better."""
    counts = np.arange(longest_count(num_items) + 1)
    return np.sin(np.outer(2 * counts + 1, _angles(num_items))) ** 2


def hit_probabilities(posterior: np.ndarray) -> np.ndarray:
    """P(a better member is measured) after r = 0…⌈π/4·√N⌉ iterations, given P(t)."""
    num_items = len(posterior)
    if num_items <= TABULATED_ITEMS:
        return _hit_table(num_items) @ posterior
    angles = _angles(num_items)
    return np.array(
        [posterior @ np.sin((2 * r + 1) * angles) ** 2 for r in range(longest_count(num_items) + 1)]
    )


def _normalised(weights: np.ndarray, unknown: int) -> np.ndarray:
    """weights / their sum; where the measurements had no probability under the ideal
    model (a noisy device can do that), nothing is known: t uniform on 0…unknown."""
    total = weights.sum()
    if total > 0:
        return weights / total
    prior = np.zeros_like(weights)
    prior[: unknown + 1] = 1 / (unknown + 1)
    return prior


def _after_miss(posterior: np.ndarray, iterations: int, unknown: int, new: bool) -> np.ndarray:
    """P(t) after r iterations measured a member no better than the threshold: × cos²((2r +
    1)θₜ) that it missed, × the chance of that very member among the N − t unmarked — 1/(N −
    t) for one already evaluated, (n − t)/(n(N − t)) for one of the n not yet evaluated (the
    t better members are among those n)."""
    num_items = len(posterior)
    t = np.arange(num_items)
    missed = posterior * np.cos((2 * iterations + 1) * _angles(num_items)) ** 2
    if new:
        identity = np.clip(unknown - t, 0, None) / (unknown * (num_items - t))
    else:
        identity = 1 / (num_items - t)
    return _normalised(missed * identity, unknown - new)


def _after_hit(posterior: np.ndarray, iterations: int, unknown: int) -> np.ndarray:
    """P(t′) after r iterations measured a better member: it is uniform among the t better
    ones, so t′ is uniform on 0…t−1 for the t the hit came from: Σ_{t>t′} P(t | hit)/t."""
    hit = posterior * np.sin((2 * iterations + 1) * _angles(len(posterior))) ** 2
    share = np.zeros_like(hit)
    share[1:] = hit[1:] / np.arange(1, len(hit))
    return _normalised(np.append(np.cumsum(share[::-1])[::-1][1:], 0.0), unknown - 1)


def durr_hoyer(
    num_items: int,
    query: Callable[[int], float],
    rng: np.random.Generator,
    *,
    start: int | None = None,
    tolerance: float = TOLERANCE,
) -> Generator[Request, int, SearchOutcome]:
    """One minimum-finding run over indices 0..num_items-1 (see the module docstring).

    Each circuit runs the Grover count that removes the most posterior mass from "a better
    member is left" per circuit cost; the run stops when that mass is below `tolerance`,
    or at Dürr–Høyer's budget. Each distinct member is evaluated classically once; the
    search learns only from measured indices and those values, and is deterministic given
    its start (drawn from rng unless `start` is given, as `replay_search` does).

    >>> import numpy as np
    >>> table = np.random.default_rng(0).normal(size=64)
    >>> search = durr_hoyer(64, table.__getitem__, np.random.default_rng(1), start=5)
    >>> next(search)  # from a uniform start, a classical draw is the best first circuit
    Request(threshold_index=5, iterations=0)
    """
    budget = query_budget(num_items)
    counts = np.arange(longest_count(num_items) + 1)
    known: dict[int, float] = {}
    steps: list[Step] = []

    def value(index: int) -> float:
        if index not in known:
            known[index] = query(index)
        return known[index]

    best_index = int(rng.integers(num_items)) if start is None else start
    first = best_index
    best = value(best_index)
    posterior = np.full(num_items, 1 / num_items)
    oracle = 0
    while 1 - posterior[0] > tolerance and oracle < budget:
        iterations = int(np.argmax(hit_probabilities(posterior) / (counts + 1)))
        doubt = float(1 - posterior[0])
        candidate = yield Request(best_index, iterations)
        unknown, new = num_items - len(known), candidate not in known
        steps.append(Step(best_index, iterations, candidate, value(candidate), doubt))
        oracle += iterations
        if value(candidate) < best:
            best_index, best = candidate, value(candidate)
            posterior = _after_hit(posterior, iterations, unknown)
        else:
            posterior = _after_miss(posterior, iterations, unknown, new)
    return SearchOutcome(
        best_index,
        oracle,
        len(known),
        len(steps),
        first,
        known[first],
        tuple(steps),
        float(1 - posterior[0]),
    )


def replay_search(
    num_items: int,
    query: Callable[[int], float] | None,
    start: int,
    steps: Sequence[Step],
    start_value: float = float("nan"),
    tolerance: float = TOLERANCE,
) -> SearchOutcome:
    """Run the search again from its trace: the recorded start and measured indices, and
    `query` (None: the values recorded in the trace, `start_value` for the start, so that a
    run folder alone can be audited). Raises ValueError where the trace departs from what
    the search would have asked (another threshold or count, a trace longer or shorter
    than the run): an audit that the outcome follows from the measurements and the queried
    values alone."""
    if query is None:
        values = {start: start_value, **{step.measured: step.value for step in steps}}
        query = values.__getitem__
    recorded = iter(steps)
    search = durr_hoyer(
        num_items, query, np.random.default_rng(0), start=start, tolerance=tolerance
    )
    try:
        request = next(search)
        while True:
            step = next(recorded, None)
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
