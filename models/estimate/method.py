"""The `estimate` method: pair circuits with Pauli observables, estimate, tabulate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ...backends.quantum.base import JobJournal, QuantumBackend
from ...errors import CapabilityError

if TYPE_CHECKING:
    from qiskit import QuantumCircuit

PAULI_LETTERS = frozenset("IXYZ")

ESTIMATES_SCHEMA = pa.schema(
    [
        pa.field("circuit", pa.string(), nullable=False),
        pa.field("observable", pa.string(), nullable=False),
        pa.field("value", pa.float64(), nullable=False),
        pa.field("precision", pa.float64(), nullable=False),
        pa.field("job_id", pa.string(), nullable=True),
    ],
    metadata={
        "observable": "Pauli label, Qiskit order: qubit 0 is the rightmost letter",
        "precision": "target standard error of the value (0: exact)",
    },
)


def observable_pairs(
    circuits: Sequence[QuantumCircuit], labels: Sequence[str]
) -> list[tuple[int, str]]:
    """(circuit index, Pauli label) for every circuit and every label of its width; with
    no labels, Z on each qubit of each circuit. A label of a width no circuit has, or a
    circuit no label fits, is an error naming it.

    Example:
        >>> from qiskit import QuantumCircuit
        >>> observable_pairs([QuantumCircuit(2)], [])
        [(0, 'IZ'), (0, 'ZI')]
    """
    for label in labels:
        if not label or set(label.upper()) - PAULI_LETTERS:
            raise CapabilityError(f"observable {label!r} is not a Pauli label (letters I, X, Y, Z)")
    pairs: list[tuple[int, str]] = []
    for i, circuit in enumerate(circuits):
        width = circuit.num_qubits
        if not labels:
            pairs += [(i, "I" * (width - 1 - q) + "Z" + "I" * q) for q in range(width)]
            continue
        fitting = [label.upper() for label in labels if len(label) == width]
        if not fitting:
            raise CapabilityError(
                f"circuit {circuit.name!r} has {width} qubits; no observable has {width} letters"
            )
        pairs += [(i, label) for label in fitting]
    widths = {c.num_qubits for c in circuits}
    for label in labels:
        if len(label) not in widths:
            raise CapabilityError(
                f"observable {label!r} has {len(label)} letters; no circuit has that many qubits"
            )
    return pairs


def estimate(
    backend: QuantumBackend,
    circuits: Sequence[QuantumCircuit],
    pairs: Sequence[tuple[int, str]],
    *,
    precision: float = 0.0,
    seed: int | None = None,
    journal: JobJournal | None = None,
) -> np.ndarray:
    """The expectation value of each (circuit index, label) pair, in one backend call
    (one estimator job on hardware); precision 0 asks for exact values."""
    return backend.estimate(
        [circuits[i] for i, _ in pairs],
        [label for _, label in pairs],
        precision=precision,
        seed=seed,
        journal=journal,
    )


def tabulate(
    names: Sequence[str],
    pairs: Sequence[tuple[int, str]],
    values: Sequence[float] | np.ndarray,
    precision: float,
    job_id: str | None = None,
) -> pa.Table:
    """The estimates table: one row per pair, in the order of `pairs`."""
    return pa.table(
        {
            "circuit": [names[i] for i, _ in pairs],
            "observable": [label for _, label in pairs],
            "value": [float(v) for v in values],
            "precision": [float(precision)] * len(pairs),
            "job_id": [job_id] * len(pairs),
        },
        schema=ESTIMATES_SCHEMA,
    )
