"""Final measurements of a circuit: which qubit lands in which classical bit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import CapabilityError
from .dynamic import final_measurements, is_static

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
    measures = final_measurements(circuit)
    if measures is not None:  # measured at the end: the rest is the body, copied in Rust
        body = circuit.copy_empty_like(vars_mode="drop")
        # QuantumCircuit.copy's own step, sharing the (immutable) operations
        body._data = circuit._data.copy(copy_instructions=False)
        del body.data[len(body.data) - len(measures) :]
    else:
        body = circuit.copy_empty_like()
        measures = []
        for instruction in circuit.data:
            if instruction.operation.name == "measure":
                measures.append(instruction)
            else:  # Qiskit's unchecked append: the instruction comes from a valid circuit
                body._append(instruction)
        if not is_static(circuit):
            measures = []
    pairs = {  # clbit -> qubit; a later measurement into the same bit overwrites it
        circuit.find_bit(m.clbits[0]).index: circuit.find_bit(m.qubits[0]).index for m in measures
    }
    if not pairs:
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
