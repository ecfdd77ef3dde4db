"""`quantum.numpy`: Qiskit circuits simulated as state vectors with numpy.

A backend is one class: a name, a tier, an Options model and capabilities, plus the
private methods the interface calls after it has validated the request (`_sample`,
`_probabilities`, `_estimate`). Circuits are lowered to gates on at most two qubits
(Qiskit's transpiler), each applied to the state as a small tensor contraction; the
measurements must come last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np
from pydantic import Field

from substrates.backends.base import BackendOptions
from substrates.backends.quantum.base import (
    JobJournal,
    QuantumBackend,
    QuantumCapabilities,
    SampleResult,
)
from substrates.backends.quantum.dynamic import is_static
from substrates.errors import CapabilityError

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp


class NumpyQubitOptions(BackendOptions):
    """Options of `quantum.numpy`. max_qubits: the widest circuit (a state of 2^n complex
    numbers, 16 bytes each)."""

    max_qubits: int = Field(16, ge=1, le=26)


class NumpyQubitBackend(QuantumBackend):
    """Exact state-vector simulation in numpy (CPU)."""

    name: ClassVar[str] = "quantum.numpy"
    tier: ClassVar = "simulator"
    Options: ClassVar = NumpyQubitOptions
    requires: ClassVar = ("numpy", "qiskit")
    install: ClassVar[str] = "pip install substrates-numpy-qubit"

    options: NumpyQubitOptions

    @property
    def capabilities(self) -> QuantumCapabilities:
        return QuantumCapabilities(max_qubits=self.options.max_qubits, exact=True)

    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]:
        streams = np.random.default_rng(seed).spawn(len(circuits))  # one per circuit
        results = []
        for circuit, rng in zip(circuits, streams, strict=True):
            outcomes = self._probabilities([circuit])[0]
            keys = list(outcomes)
            p = np.array([outcomes[k] for k in keys])
            drawn = rng.multinomial(shots, p / p.sum())
            counts = {k: int(n) for k, n in zip(keys, drawn, strict=True) if n}
            results.append(SampleResult(counts, shots))
        return results

    def _probabilities(self, circuits: list[QuantumCircuit]) -> list[dict[str, float]]:
        return [_distribution(circuit) for circuit in circuits]

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
        journal: JobJournal | None,
    ) -> np.ndarray:
        values = []
        for circuit, observable in zip(circuits, observables, strict=True):
            state, _ = _state(circuit)
            total = 0.0
            for label, coefficient in observable.to_list():
                flipped = state
                for qubit, pauli in enumerate(reversed(label)):  # label: qubit 0 rightmost
                    if pauli != "I":
                        flipped = _apply(flipped, _PAULIS[pauli], [qubit])
                total += (coefficient * np.vdot(state, flipped)).real
            values.append(total)
        return np.array(values)


_PAULIS = {
    "X": np.array([[0, 1], [1, 0]], complex),
    "Y": np.array([[0, -1j], [1j, 0]], complex),
    "Z": np.array([[1, 0], [0, -1]], complex),
}


def _state(circuit: QuantumCircuit) -> tuple[np.ndarray, dict[int, int]]:
    """The state before the measurements (qubit 0 least significant) and clbit → qubit."""
    from qiskit import transpile
    from qiskit.quantum_info import Operator

    if not is_static(circuit):  # refuse in one line rather than answer wrongly
        raise CapabilityError(
            f"{circuit.name}: quantum.numpy runs circuits whose measurements come last (no "
            "mid-circuit measurement, reset or control flow); run it on quantum.aer"
        )
    measured: dict[int, int] = {}
    gates = circuit.copy_empty_like()
    for instruction in circuit.data:
        qubits = [circuit.find_bit(q).index for q in instruction.qubits]
        if instruction.operation.name == "measure":
            measured[circuit.find_bit(instruction.clbits[0]).index] = qubits[0]
        elif instruction.operation.name == "barrier":
            continue
        elif measured and set(qubits) & set(measured.values()):
            raise CapabilityError(f"{circuit.name}: quantum.numpy measures only at the end")
        else:
            gates.append(instruction)
    lowered = transpile(gates, basis_gates=["u", "cx"], optimization_level=0)
    state = np.zeros(2**circuit.num_qubits, complex)
    state[0] = 1.0
    for instruction in lowered.data:
        qubits = [lowered.find_bit(q).index for q in instruction.qubits]
        state = _apply(state, Operator(instruction.operation).data, qubits)
    return state, measured


def _apply(state: np.ndarray, matrix: np.ndarray, qubits: list[int]) -> np.ndarray:
    """matrix (Qiskit's order: qubits[0] least significant) applied to `qubits` of state."""
    n, k = int(np.log2(len(state))), len(qubits)
    axes = [n - 1 - q for q in reversed(qubits)]  # tensor axis i is qubit n − 1 − i
    tensor = np.tensordot(
        matrix.reshape([2] * (2 * k)), state.reshape([2] * n), axes=(list(range(k, 2 * k)), axes)
    )
    return np.moveaxis(tensor, list(range(k)), axes).reshape(-1)


def _distribution(circuit: QuantumCircuit) -> dict[str, float]:
    """Probabilities of the classical bitstrings (clbit 0 rightmost, unmeasured bits 0)."""
    state, measured = _state(circuit)
    if not measured:
        raise CapabilityError(f"{circuit.name}: measure at least one qubit")
    n = circuit.num_qubits
    probabilities = (np.abs(state) ** 2).reshape([2] * n)
    kept = sorted(measured)  # clbits, each reading one qubit
    axes = [n - 1 - measured[c] for c in kept]
    marginal = probabilities.transpose(axes + [a for a in range(n) if a not in axes])
    marginal = marginal.reshape(2 ** len(kept), -1).sum(axis=1)
    out = {}
    for index in np.flatnonzero(marginal > 1e-14):
        bits = ["0"] * circuit.num_clbits
        for position, clbit in enumerate(kept):  # index's first bit is kept[0]
            bits[circuit.num_clbits - 1 - clbit] = "01"[(index >> (len(kept) - 1 - position)) & 1]
        out["".join(bits)] = float(marginal[index])
    return out
