"""Final measurements of a circuit: which qubit lands in which classical bit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import CapabilityError
from .dynamic import is_static

if TYPE_CHECKING:
    from qiskit import QuantumCircuit


@dataclass(frozen=True)
class MeasuredCircuit:
    """A circuit without its final measurements, plus where they went.

    qubits[i] is measured into clbits[i]; num_clbits is the width of the bitstrings.
    """

    unitary_part: QuantumCircuit
    qubits: tuple[int, ...]
    clbits: tuple[int, ...]
    num_clbits: int


def split_measurements(circuit: QuantumCircuit) -> MeasuredCircuit:
    """Separate the final measurements of a static circuit (see `dynamic.is_static`).

    A circuit with mid-circuit measurement, reset or control flow is refused here: its
    exact results come from `dynamic.run_branches`.
    """
    pairs: dict[int, int] = {}
    body = circuit.copy_empty_like()
    for instruction in circuit.data:
        if instruction.operation.name == "measure":
            qubit = circuit.find_bit(instruction.qubits[0]).index
            clbit = circuit.find_bit(instruction.clbits[0]).index
            pairs[clbit] = qubit  # a later measurement into the same bit overwrites it
        else:  # Qiskit's unchecked append: the instruction comes from a valid circuit
            body._append(instruction)
    if not is_static(circuit) or not pairs:
        raise CapabilityError(
            f"circuit {circuit.name!r} needs final measurements only "
            "(none mid-circuit, no reset or control flow, at least one)"
        )
    clbits = tuple(sorted(pairs))
    return MeasuredCircuit(
        unitary_part=body,
        qubits=tuple(pairs[c] for c in clbits),
        clbits=clbits,
        num_clbits=circuit.num_clbits,
    )


def distribution_to_bitstrings(
    probabilities: np.ndarray, clbits: tuple[int, ...], num_clbits: int, cutoff: float = 1e-14
) -> dict[str, float]:
    """Map a dense distribution over measured qubits (bit i = clbits[i]) to Qiskit bitstrings.

    Entries at or below `cutoff` are dropped; unmeasured classical bits read 0.
    """
    index = np.flatnonzero(probabilities > cutoff)
    if clbits == tuple(range(num_clbits)):
        keys = index
    else:
        keys = np.zeros_like(index)
        for position, clbit in enumerate(clbits):
            keys |= ((index >> position) & 1) << clbit
    width = f"0{num_clbits}b"
    return {
        format(int(k), width): float(probabilities[i]) for k, i in zip(keys, index, strict=True)
    }


def outcomes_to_bitstrings(
    outcomes: dict[tuple[int, ...], float], clbits: tuple[int, ...], num_clbits: int
) -> dict[str, float]:
    """Map sparse outcomes (bit i of a key = clbits[i]) to Qiskit bitstrings."""
    width = f"0{num_clbits}b"
    out: dict[str, float] = {}
    for bits, probability in outcomes.items():
        key = format(sum(b << c for b, c in zip(bits, clbits, strict=True)), width)
        out[key] = out.get(key, 0.0) + probability
    return out
