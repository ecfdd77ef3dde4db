"""The shipped quantum suite (substrates.testing.quantum) on every shipped quantum config,
plus the GPU tier's code path on the CPU."""

from __future__ import annotations

import pytest

from substrates.adapters.config import load_config
from substrates.backends.registry import names
from substrates.testing.quantum import TestQuantumBackend

from .backends import CASES, GPU_ON_CPU, QUANTUM_CONFIGS, build

__all__ = ["TestQuantumBackend"]


@pytest.fixture(scope="module", params=CASES)
def backend(request: pytest.FixtureRequest):
    return build(request.param)


def test_every_registered_backend_has_a_shipped_config() -> None:
    covered = {load_config(name).config.backend for name in QUANTUM_CONFIGS}
    assert set(names("quantum")) <= covered


NOISELESS_EXACT = [
    "aer_statevector",
    "aer_mps",
    "pennylane_default",
    "pennylane_lightning",
    GPU_ON_CPU,
]


@pytest.mark.parametrize("case", NOISELESS_EXACT)
def test_shipped_noiseless_backends_compute_dynamic_circuits(case: str) -> None:
    """The suite lets a backend refuse a dynamic circuit; ours must not."""
    from substrates.testing.deferred import deferred_distribution
    from substrates.testing.dynamic_circuits import DYNAMIC_CASES

    backend = build(case)
    for make in DYNAMIC_CASES.values():
        circuit = make()
        (probs,) = backend.probabilities([circuit])
        want = deferred_distribution(circuit)
        assert probs.keys() == want.keys(), circuit.name
        assert all(abs(probs[k] - want[k]) < 1e-9 for k in want), circuit.name


def _initialized() -> list:
    """Circuits with `initialize`: first on fresh qubits (a gate), after entangling gates
    (a reset of half a Bell pair, then the preparation), by label, and inside an if."""
    import numpy as np
    from qiskit import QuantumCircuit

    amplitudes = np.array([1, 1j]) @ np.random.default_rng(47).normal(size=(2, 8))
    leading = QuantumCircuit(3, 3, name="leading")
    leading.initialize(amplitudes / np.linalg.norm(amplitudes), [0, 1, 2])
    leading.h(0)
    leading.cx(0, 1)
    after_gates = QuantumCircuit(3, 3, name="after-gates")
    after_gates.h([0, 1])
    after_gates.cx(0, 2)
    after_gates.initialize([0.6, 0.8j], [2])
    after_gates.initialize("+1", [0, 1])
    after_gates.cz(1, 2)
    conditional = QuantumCircuit(2, 2, name="conditional")
    conditional.h(0)
    conditional.measure(0, 0)
    with conditional.if_test((conditional.clbits[0], 1)):
        conditional.initialize([0.8, 0.6], [0])
    conditional.cx(0, 1)
    circuits = [leading, after_gates, conditional]
    for circuit in circuits:
        circuit.measure(range(circuit.num_qubits), range(circuit.num_qubits))
    return circuits


@pytest.mark.parametrize("case", NOISELESS_EXACT)
def test_shipped_noiseless_backends_give_exact_results_with_initialize(case: str) -> None:
    """`initialize` is a reset of its qubits and a state preparation: exact probabilities
    and expectation values equal qiskit.quantum_info's density-matrix evolution, and one
    only at the start of the circuit keeps it static (one exact run, no branching)."""
    from qiskit.quantum_info import DensityMatrix, SparsePauliOp

    from substrates.backends.quantum.dynamic import exact_form, is_static

    backend = build(case)
    circuits = _initialized()
    assert [is_static(exact_form(c)) for c in circuits] == [True, False, False]
    for circuit in circuits:
        (probs,) = backend.probabilities([circuit])
        if circuit.name == "conditional":  # by hand: on 1, 0.8|00> + 0.6|11> after the CX
            want = {"00": 0.5 + 0.5 * 0.64, "11": 0.5 * 0.36}
        else:
            want = DensityMatrix(circuit.remove_final_measurements(inplace=False))
            want = want.probabilities_dict()
        assert all(abs(probs.get(k, 0.0) - v) < 1e-9 for k, v in want.items()), circuit.name
        observable = SparsePauliOp(["Z" * circuit.num_qubits, "X" + "I" * (circuit.num_qubits - 1)])
        if circuit.name != "conditional":
            (value,) = backend.estimate([circuit], [observable])
            state = DensityMatrix(circuit.remove_final_measurements(inplace=False))
            assert abs(value - state.expectation_value(observable).real) < 1e-9, circuit.name
