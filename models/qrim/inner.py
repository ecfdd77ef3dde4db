"""Inner minimization over the uncertainty set: min_u T[u] for many tables at once.

Two implementations the outer loops cannot tell apart: `ExhaustiveMin` queries every
member; `QuantumMinimumFinder` (QRIM) runs Dürr–Høyer searches on a quantum backend.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import OrderedDict, defaultdict
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...backends.quantum.base import JobJournal, QuantumBackend
from ...errors import CapabilityError
from .oracle import Construction, grover_circuit, oracle_key
from .search import Request, SearchOutcome, durr_hoyer

MAX_CACHED_CIRCUITS = 4096
"""Distributions (exact backends) or unused shots (sampling ones) kept, least recent dropped."""


def _forget_oldest(store: OrderedDict) -> None:
    while len(store) > MAX_CACHED_CIRCUITS:
        store.popitem(last=False)


@dataclass(frozen=True)
class InnerResult:
    """The member an inner minimization returned and what finding it cost.

    oracle_queries: oracle applications (Grover iterations summed over measured circuits).
    classical_queries: members whose value was evaluated classically.
    circuits: circuits whose measurement the search consumed (one shot each).
    searches: each Dürr–Høyer run with its trace (empty for exhaustive search).
    """

    index: int
    value: float
    oracle_queries: int
    classical_queries: int
    circuits: int
    searches: tuple[SearchOutcome, ...] = ()


class InnerMinimizer(ABC):
    """min over u of a table T[u]; the outer RL loop sees only this interface."""

    name: str

    @abstractmethod
    def argmin_many(self, tables: Sequence[np.ndarray]) -> list[InnerResult]:
        """Minimize each table (length |U|) independently."""

    def argmin(self, table: np.ndarray) -> InnerResult:
        return self.argmin_many([table])[0]


class ExhaustiveMin(InnerMinimizer):
    """The classical reference: |U| queries per minimization."""

    name = "exhaustive"

    def argmin_many(self, tables: Sequence[np.ndarray]) -> list[InnerResult]:
        results = []
        for table in tables:
            index = int(np.argmin(table))
            results.append(InnerResult(index, float(table[index]), 0, len(table), 0))
        return results


@dataclass
class BackendUse:
    """What the backend executed: distinct circuits and shots (≥ what the search consumed)."""

    circuits: int = 0
    shots: int = 0
    calls: int = 0


@dataclass
class _Search:
    table_id: int
    generator: Generator[Request, int, SearchOutcome]
    request: Request | None = None


@dataclass
class QuantumMinimumFinder(InnerMinimizer):
    """QRIM: Dürr–Høyer minimum finding on any quantum backend, each Grover count chosen on
    the exact posterior of how many members beat the threshold (`search.durr_hoyer`).

    repetitions: independent runs per minimization; the best is kept (on an ideal device
        each run ends away from the minimum with probability at most search.TOLERANCE).
    construction: 'gates' (QROM + comparator, runs on hardware) or 'diagonal'.
    shots: on sampling backends, shots per distinct circuit; the search draws its
        one-shot measurements from them in order, as if it had run the circuit each time.
    journal: told each hardware job id as it is submitted.
    """

    backend: QuantumBackend
    construction: Construction = "diagonal"
    repetitions: int = 1
    seed: int | None = None
    shots: int = 1024
    journal: JobJournal | None = None
    use: BackendUse = field(default_factory=BackendUse)
    name: str = "qrim"

    def __post_init__(self) -> None:
        if self.repetitions < 1:
            raise ValueError("repetitions must be at least 1")
        self._rng = np.random.default_rng(self.seed)
        self._exact = self.backend.capabilities.exact
        self._distributions: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._pools: OrderedDict[tuple, list[int]] = OrderedDict()

    def required_qubits(self, num_members: int) -> int:
        """Widest circuit a search over num_members can need (index + value + flag)."""
        n = int(math.log2(num_members))
        return n if self.construction == "diagonal" else 2 * n + 1

    def check_width(self, num_members: int) -> None:
        """Refuse before any compute when the backend has too few qubits for U."""
        limit = self.backend.capabilities.max_qubits
        need = self.required_qubits(num_members)
        if limit is not None and need > limit:
            raise CapabilityError(
                f"|U| = {num_members} needs {need} qubits with the {self.construction!r} oracle; "
                f"{self.backend.name} has {limit}"
            )

    def argmin_many(self, tables: Sequence[np.ndarray]) -> list[InnerResult]:
        tables = [np.asarray(t, dtype=float) for t in tables]
        for table in tables:
            if len(table) < 2 or len(table) & (len(table) - 1):
                raise CapabilityError(f"|U| = {len(table)} is not a power of two ≥ 2")
            self.check_width(len(table))
        searches = [
            _Search(i, durr_hoyer(len(t), t.__getitem__, self._rng))
            for i, t in enumerate(tables)
            for _ in range(self.repetitions)
        ]
        outcomes: dict[int, list[SearchOutcome]] = defaultdict(list)
        active: list[_Search] = []
        for search in searches:
            self._advance(search, None, active, outcomes)
        while active:
            measured = self._measure([(tables[s.table_id], s.request) for s in active])
            still: list[_Search] = []
            for search, index in zip(active, measured, strict=True):
                self._advance(search, index, still, outcomes)
            active = still
        return [self._combine(tables[i], outcomes[i]) for i in range(len(tables))]

    @staticmethod
    def _advance(
        search: _Search,
        measured: int | None,
        active: list[_Search],
        outcomes: dict[int, list[SearchOutcome]],
    ) -> None:
        try:
            search.request = (
                next(search.generator) if measured is None else search.generator.send(measured)
            )
            active.append(search)
        except StopIteration as stop:
            outcomes[search.table_id].append(stop.value)

    @staticmethod
    def _combine(table: np.ndarray, runs: list[SearchOutcome]) -> InnerResult:
        best = min(runs, key=lambda r: table[r.index])  # values already queried by each run
        return InnerResult(
            index=best.index,
            value=float(table[best.index]),
            oracle_queries=sum(r.oracle_queries for r in runs),
            classical_queries=sum(r.classical_queries for r in runs),
            circuits=sum(r.circuits for r in runs),
            searches=tuple(runs),
        )

    # -- turning requests into measured indices -----------------------------------------
    def _key(self, table: np.ndarray, request: Request) -> tuple:
        """Requests with equal keys run the same circuit: (iterations, the oracle's key)."""
        if request.iterations == 0:
            return (0, len(table))
        return (
            request.iterations,
            oracle_key(table, request.threshold_index, self.construction),
        )

    def _measure(self, requests: list[tuple[np.ndarray, Request]]) -> list[int]:
        keys = [self._key(table, request) for table, request in requests]
        if self._exact:
            self._compute_distributions(requests, keys)
            drawn = [self._draw(self._distributions[key]) for key in keys]
            _forget_oldest(self._distributions)
            return drawn
        needed: dict[tuple, int] = defaultdict(int)
        for key in keys:
            needed[key] += 1
        self._refill_pools(requests, keys, needed)
        drawn = [self._pools[key].pop() for key in keys]
        _forget_oldest(self._pools)
        return drawn

    def _circuits_for(
        self, requests: list[tuple[np.ndarray, Request]], keys: list[tuple], missing: set[tuple]
    ) -> tuple[list[tuple], list]:
        order, circuits, seen = [], [], set()
        for (table, request), key in zip(requests, keys, strict=True):
            if key in missing and key not in seen:
                seen.add(key)
                order.append(key)
                circuits.append(
                    grover_circuit(
                        table,
                        request.threshold_index,
                        request.iterations,
                        self.construction,
                        key=key[1] if request.iterations else None,
                    )
                )
        return order, circuits

    def _compute_distributions(self, requests: list, keys: list[tuple]) -> None:
        for key in keys:
            if key in self._distributions:
                self._distributions.move_to_end(key)
        missing = {k for k in keys if k not in self._distributions}
        if not missing:
            return
        order, circuits = self._circuits_for(requests, keys, missing)
        self.use.calls += 1
        self.use.circuits += len(circuits)
        for key, probs in zip(order, self.backend.probabilities(circuits), strict=True):
            dense = np.zeros(1 << len(next(iter(probs))))  # 2^(measured bits)
            dense[[int(bitstring, 2) for bitstring in probs]] = list(probs.values())
            self._distributions[key] = dense / dense.sum()

    def _draw(self, distribution: np.ndarray) -> int:
        return int(np.searchsorted(np.cumsum(distribution), self._rng.random(), side="right"))

    def _refill_pools(self, requests: list, keys: list[tuple], needed: dict) -> None:
        for key in needed:
            self._pools.setdefault(key, [])
            self._pools.move_to_end(key)
        missing = {k for k, n in needed.items() if len(self._pools[k]) < n}
        if not missing:
            return
        order, circuits = self._circuits_for(requests, keys, missing)
        shots = max(self.shots, max(needed[k] for k in order))
        seed = int(self._rng.integers(2**31))
        self.use.calls += 1
        self.use.circuits += len(circuits)
        self.use.shots += shots * len(circuits)
        results = self.backend.sample(circuits, shots=shots, seed=seed, journal=self.journal)
        for key, result in zip(order, results, strict=True):
            outcomes = [int(b, 2) for b, c in result.counts.items() for _ in range(c)]
            self._rng.shuffle(outcomes)
            self._pools[key].extend(outcomes)
