"""The two oracle constructions are one operator; Grover circuits amplify as theory says."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import Operator, Statevector

from substrates.models.qrim.oracle import grover_circuit, oracle_circuit


def _tables(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    size = 2**n
    return [rng.normal(size=size), rng.integers(0, 3, size=size).astype(float)]  # ties too


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_gate_oracle_equals_diagonal_oracle(n: int) -> None:
    size = 2**n
    tables = _tables(n) if n < 4 else _tables(n)[:1]  # 9-qubit operators: keep it to seconds
    thresholds = range(size) if n < 4 else (size // 2 - 1,)
    for values in tables:
        for threshold in thresholds:
            diagonal = Operator(oracle_circuit(values, threshold, "diagonal")).data
            gates = Operator(oracle_circuit(values, threshold, "gates")).data
            # Ancillas are the high qubits: inputs and outputs with ancillas |0> are the
            # first `size` basis states. The gate oracle must act there as the diagonal one,
            # and return every ancilla to |0> (no amplitude leaks out of that block).
            assert np.allclose(gates[:size, :size], diagonal, atol=1e-9)
            assert np.allclose(gates[size:, :size], 0, atol=1e-9)
            expected = np.where(values < values[threshold], -1, 1)
            assert np.allclose(np.diag(diagonal), expected)


@pytest.mark.parametrize(("n", "marked_count"), [(3, 1), (4, 1), (4, 3), (6, 5)])
def test_grover_amplifies_marked_members_as_theory_says(n: int, marked_count: int) -> None:
    size = 2**n
    values = np.arange(size, dtype=float)
    threshold = marked_count  # members 0..marked_count-1 lie below it
    theta = math.asin(math.sqrt(marked_count / size))
    for iterations in range(4):
        circuit = grover_circuit(values, threshold, iterations, "diagonal")
        probs = Statevector(circuit.remove_final_measurements(inplace=False)).probabilities()
        found = probs[:marked_count].sum()
        assert found == pytest.approx(math.sin((2 * iterations + 1) * theta) ** 2, abs=1e-9)


def test_gate_grover_circuit_measures_only_the_index() -> None:
    circuit = grover_circuit(np.arange(8.0), 2, 1, "gates")
    assert circuit.num_clbits == 3 and circuit.num_qubits > 3


def test_grover_circuits_at_one_threshold_share_one_built_iteration() -> None:
    """The oracle is built once per marked set: two counts, one oracle gate object (and
    the diffusion's reflection, one object for every oracle)."""
    from substrates.models.qrim.oracle import grover_circuit

    values = np.random.default_rng(3).normal(size=16)
    two, five = (grover_circuit(values, 4, r, "diagonal") for r in (2, 5))
    diagonal = {id(i.operation) for c in (two, five) for i in c.data if i.name == "diagonal"}
    assert len(diagonal) == 2  # the oracle and the reflection about |0…0>
    other = grover_circuit(values, int(np.argmax(values)), 2, "diagonal")
    shared = {id(i.operation) for i in other.data if i.name == "diagonal"} & diagonal
    assert len(shared) == 1  # the reflection only: a new marked set, a new oracle


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_both_diffusions_are_the_reflection_about_the_uniform_state(n: int) -> None:
    from substrates.models.qrim.oracle import _diffusion

    size = 2**n
    uniform = np.full((size, 1), size**-0.5)
    reflection = 2 * uniform @ uniform.T - np.eye(size)
    for construction in ("gates", "diagonal"):
        operator = Operator(_diffusion(n, construction)).data
        phase = np.vdot(reflection, operator) / size  # equal up to a global phase
        assert abs(abs(phase) - 1) < 1e-9
        assert np.allclose(operator, phase * reflection, atol=1e-9)
