"""Final measurements of a circuit: which qubit lands in which classical bit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CapabilityError

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
    """Separate the final measurements; mid-circuit measurement is refused."""
    pairs: dict[int, int] = {}
    for instruction in circuit.data:
        if instruction.operation.name == "measure":
            qubit = circuit.find_bit(instruction.qubits[0]).index
            clbit = circuit.find_bit(instruction.clbits[0]).index
            pairs[clbit] = qubit
    stripped = circuit.remove_final_measurements(inplace=False)
    if any(i.operation.name == "measure" for i in stripped.data) or not pairs:
        raise CapabilityError(
            f"circuit {circuit.name!r} needs final measurements only "
            "(none mid-circuit, at least one)"
        )
    clbits = tuple(sorted(pairs))
    return MeasuredCircuit(
        unitary_part=stripped,
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
