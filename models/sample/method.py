"""The `sample` method: run circuits on any quantum backend and tabulate the counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from ...backends.quantum.base import JobJournal, QuantumBackend, SampleResult
from ...datasets.quantum.counts import counts_table

if TYPE_CHECKING:
    from qiskit import QuantumCircuit


def sample(
    backend: QuantumBackend,
    circuits: Sequence[QuantumCircuit],
    *,
    shots: int,
    seed: int | None = None,
    exact: bool = True,
    journal: JobJournal | None = None,
) -> pa.Table:
    """Counts of each circuit, plus exact probabilities where `exact` and the backend allow."""
    results = backend.sample(circuits, shots=shots, seed=seed, journal=journal)
    probabilities = (
        backend.probabilities(circuits) if exact and backend.capabilities.exact else None
    )
    return tabulate([c.name for c in circuits], results, shots, probabilities)


def tabulate(
    names: Sequence[str],
    results: Sequence[SampleResult],
    shots: int,
    probabilities: Sequence[dict[str, float]] | None = None,
) -> pa.Table:
    """The counts table of sampled results (also used when collecting jobs later)."""
    return counts_table(names, [r.counts for r in results], shots, probabilities)
