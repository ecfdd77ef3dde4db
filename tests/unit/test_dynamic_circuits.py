"""Branching for dynamic circuits: what is static, loops, merging, refusals, and the MPS
outcome search, against the deferred-measurement reference and qiskit.quantum_info."""

from __future__ import annotations

import numpy as np
import pytest
from qiskit import QuantumCircuit, transpile
from qiskit.circuit.random import random_circuit
from qiskit.quantum_info import Statevector

from substrates.backends.quantum.dynamic import (
    evolve_with_quantum_info,
    is_static,
    outcome_distribution,
    run_branches,
    strip_final_measurements,
)
from substrates.backends.quantum.mps_outcomes import mps_outcomes
from substrates.backends.quantum.seeds import circuit_seeds
from substrates.backends.registry import create_backend
from substrates.datasets.quantum.generators import ghz
from substrates.errors import CapabilityError
from substrates.testing.deferred import deferred_distribution
from substrates.testing.dynamic_circuits import DYNAMIC_CASES, conditional_x, random_dynamic_circuit


def _distribution(circuit: QuantumCircuit, **kwargs) -> dict[str, float]:
    return outcome_distribution(
        run_branches(circuit, evolve_with_quantum_info, **kwargs), circuit.num_clbits
    )


def test_static_means_final_measurements_only() -> None:
    assert is_static(ghz(3))
    twice = QuantumCircuit(1, 2)
    twice.measure(0, 0)
    twice.measure(0, 1)  # a second measurement of the same qubit: the first is mid-circuit
    assert not is_static(twice)
    reset = QuantumCircuit(1, 1)
    reset.reset(0)
    reset.measure(0, 0)
    assert not is_static(reset)
    assert not is_static(conditional_x())
    barrier = QuantumCircuit(2, 2)
    barrier.measure(0, 0)
    barrier.barrier()
    barrier.measure(1, 1)
    assert is_static(barrier)


def test_a_measurement_read_later_is_kept_for_expectation_values() -> None:
    circuit = conditional_x()  # measure 0 is read by the if: kept; measure 1 is final
    kept = [i.operation.name for i in strip_final_measurements(circuit).data]
    assert kept == ["h", "measure", "if_else"]


def test_the_issue_circuit_gives_00_and_11() -> None:
    assert _distribution(conditional_x()) == pytest.approx({"00": 0.5, "11": 0.5}, abs=1e-12)


@pytest.mark.parametrize("case", sorted(DYNAMIC_CASES))
def test_branching_matches_deferred_measurement(case: str) -> None:
    circuit = DYNAMIC_CASES[case]()
    got, want = _distribution(circuit), deferred_distribution(circuit)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_random_dynamic_circuits_match_deferred_measurement(seed: int) -> None:
    circuit = random_dynamic_circuit(seed, num_qubits=3, depth=10)
    got, want = _distribution(circuit), deferred_distribution(circuit)
    for key in got.keys() | want.keys():
        assert got.get(key, 0.0) == pytest.approx(want.get(key, 0.0), abs=1e-12)


def test_repeat_until_success_loop_ends_in_success() -> None:
    circuit = QuantumCircuit(1, 1, name="rus")
    circuit.h(0)
    circuit.measure(0, 0)
    with circuit.while_loop((circuit.clbits[0], 0)):
        circuit.reset(0)
        circuit.h(0)
        circuit.measure(0, 0)
    assert _distribution(circuit) == pytest.approx({"1": 1.0}, abs=1e-14)


def test_a_loop_that_never_ends_is_refused() -> None:
    circuit = QuantumCircuit(1, 1, name="forever")
    with circuit.while_loop((circuit.clbits[0], 0)):
        circuit.x(0)
    with pytest.raises(CapabilityError, match="while loop still runs with probability 1"):
        _distribution(circuit)


def test_a_reset_of_an_unentangled_qubit_keeps_one_branch() -> None:
    circuit = QuantumCircuit(2, 1)
    circuit.h(0)
    circuit.h(1)
    circuit.reset(0)
    circuit.reset(0)
    branches = run_branches(circuit, evolve_with_quantum_info)
    assert len(branches) == 1 and branches[0].probability == pytest.approx(1.0)


def test_too_many_branches_are_refused_in_one_line() -> None:
    circuit = QuantumCircuit(4, 8, name="wide")
    for k in range(8):
        circuit.h(k % 4)
        circuit.measure(k % 4, k)
    with pytest.raises(CapabilityError, match="more than 16 branches of 2\\^4 amplitudes"):
        _distribution(circuit, max_bytes=16 * 16 * 16)


def test_classical_variables_are_refused_by_name() -> None:
    from qiskit.circuit.classical import expr, types

    circuit = QuantumCircuit(1, 1, name="vars")
    flag = circuit.add_var("flag", expr.lift(True, types.Bool()))
    circuit.measure(0, 0)
    with circuit.if_test(flag):
        circuit.x(0)
    circuit.measure(0, 0)
    with pytest.raises(CapabilityError, match="classical variables"):
        _distribution(circuit)


def test_circuit_seeds_are_distinct_and_reproducible() -> None:
    seeds = circuit_seeds(5, 100)
    assert seeds == circuit_seeds(5, 100) and len(set(seeds)) == 100
    assert set(seeds).isdisjoint(circuit_seeds(6, 100))  # not s + i: neighbours share nothing
    with pytest.raises(ValueError, match="seed must be in"):
        circuit_seeds(-1, 2)


@pytest.mark.parametrize("width", [40, 63])
def test_mps_gives_exact_ghz_probabilities_without_a_dense_vector(width: int) -> None:
    backend = create_backend("quantum.aer", {"method": "matrix_product_state"})
    (probs,) = backend.probabilities([ghz(width)])
    assert probs == pytest.approx({"0" * width: 0.5, "1" * width: 0.5}, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_mps_outcomes_match_statevector_on_entangling_circuits(seed: int) -> None:
    circuit = transpile(random_circuit(6, 12, max_operands=2, seed=seed), basis_gates=["u", "cx"])
    measured = (4, 0, 2)  # a subset, out of order
    body = circuit.copy()
    body.save_matrix_product_state(label="mps")
    from qiskit_aer import AerSimulator

    saved = AerSimulator(method="matrix_product_state").run(body, shots=1).result().data(0)["mps"]
    got = mps_outcomes(*saved, measured)
    reference = Statevector(circuit).probabilities(list(measured))  # index bit i = measured[i]
    for index, p in enumerate(reference):
        key = tuple((index >> i) & 1 for i in range(len(measured)))
        assert got.get(key, 0.0) == pytest.approx(p, abs=1e-9)


def test_mps_refuses_more_outcomes_than_allowed() -> None:
    circuit = QuantumCircuit(8)
    circuit.h(range(8))
    circuit.save_matrix_product_state(label="mps")
    from qiskit_aer import AerSimulator

    saved = (
        AerSimulator(method="matrix_product_state").run(circuit, shots=1).result().data(0)["mps"]
    )
    with pytest.raises(CapabilityError, match="more than 100 outcomes"):
        mps_outcomes(*saved, tuple(range(8)), max_outcomes=100)
    assert len(mps_outcomes(*saved, tuple(range(8)))) == 256
    assert np.isclose(sum(mps_outcomes(*saved, (1, 5)).values()), 1.0)
