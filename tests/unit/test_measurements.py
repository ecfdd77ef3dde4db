"""Final-measurement bookkeeping shared by the exact backends."""

from __future__ import annotations

import numpy as np
import pytest
from qiskit import QuantumCircuit

from substrates.backends.quantum.measurements import distribution_to_bitstrings, split_measurements
from substrates.errors import CapabilityError


def test_split_records_qubit_to_clbit_map() -> None:
    circuit = QuantumCircuit(3, 4)
    circuit.h(0)
    circuit.measure([0, 2], [3, 1])
    parts = split_measurements(circuit)
    assert parts.clbits == (1, 3) and parts.qubits == (2, 0) and parts.num_clbits == 4
    assert "measure" not in parts.unitary_part.count_ops()


def test_mid_circuit_measurement_is_refused() -> None:
    circuit = QuantumCircuit(1, 1)
    circuit.measure(0, 0)
    circuit.h(0)
    circuit.measure(0, 0)
    with pytest.raises(CapabilityError, match="final measurements only"):
        split_measurements(circuit)


def test_unmeasured_circuit_is_refused() -> None:
    with pytest.raises(CapabilityError, match="at least one"):
        split_measurements(QuantumCircuit(2))


def test_distribution_places_bits_on_their_clbits() -> None:
    # measured qubits -> clbits (3, 0); index bit 0 is clbit 3, bit 1 is clbit 0
    probabilities = np.array([0.1, 0.2, 0.3, 0.4])
    got = distribution_to_bitstrings(probabilities, (3, 0), 4)
    assert got == {"0000": 0.1, "1000": 0.2, "0001": 0.3, "1001": 0.4}


def test_distribution_drops_zeros() -> None:
    assert distribution_to_bitstrings(np.array([0.0, 1.0]), (0,), 1) == {"1": 1.0}


@pytest.mark.parametrize("seed", range(12))
def test_split_agrees_with_qiskit_on_random_circuits(seed: int) -> None:
    """Measurements at the end (the fast path) or with a barrier after them (the walk):
    the body is Qiskit's `remove_final_measurements`, the map is the one measured into,
    and the circuit given is left as it was."""
    from qiskit.quantum_info import Operator

    rng = np.random.default_rng(seed)
    circuit = QuantumCircuit(3, 4)
    for _ in range(int(rng.integers(1, 8))):
        kind = rng.integers(3)
        a, b = (int(q) for q in rng.choice(3, 2, replace=False))
        if kind == 0:
            circuit.h(a)
        elif kind == 1:
            circuit.cx(a, b)
        else:
            circuit.rz(float(rng.normal()), a)
    qubits = [int(q) for q in rng.permutation(3)[: int(rng.integers(1, 4))]]
    clbits = [int(c) for c in rng.choice(4, len(qubits), replace=False)]
    circuit.measure(qubits, clbits)
    if seed % 2:
        circuit.barrier()
    before = circuit.copy()
    parts = split_measurements(circuit)
    expected = dict(zip(clbits, qubits, strict=True))
    assert parts.clbits == tuple(sorted(expected))
    assert parts.qubits == tuple(expected[c] for c in parts.clbits)
    reference = circuit.remove_final_measurements(inplace=False)
    assert Operator(parts.unitary_part).equiv(Operator(reference))
    assert "measure" not in parts.unitary_part.count_ops()
    assert circuit == before
