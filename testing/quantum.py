"""The quantum conformance suite, and its independent references.

Exact backends must match qiskit.quantum_info and closed forms to 1e-9; sampled counts of
noiseless backends must sit within binomial tolerance at fixed seeds; noisy backends must
still find a 3-qubit Grover search's marked item; requests beyond the capabilities fail
before any compute.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit import QuantumCircuit
from qiskit.quantum_info import SparsePauliOp, Statevector

from ..backends.quantum.base import QuantumBackend
from ..backends.registry import get_backend_class
from ..datasets.quantum.generators import (
    bell,
    ghz,
    grover,
    grover_iterations,
    grover_success_probability,
)
from ..errors import CapabilityError
from .deferred import deferred_distribution, deferred_expectation
from .dynamic_circuits import DYNAMIC_CASES, random_dynamic_circuit

SIZES = [2, 3, 5, 8, 12]
SHOTS = 4000


def exact_distribution(circuit: QuantumCircuit) -> dict[str, float]:
    """Outcome probabilities from qiskit.quantum_info (no simulator involved)."""
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    return {k: float(v) for k, v in state.probabilities_dict().items() if v > 1e-14}


def exact_expectation(circuit: QuantumCircuit, observable: str) -> float:
    """<ψ|P|ψ> of one Pauli label in the state the circuit prepares (quantum_info)."""
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    return float(np.real(state.expectation_value(SparsePauliOp(observable))))


def binomial_tolerance(p: float, shots: int, sigmas: float = 5.0) -> float:
    """Allowed |frequency - p| for `shots` Bernoulli draws: `sigmas` standard errors + 1 count."""
    return sigmas * math.sqrt(p * (1 - p) / shots) + 1 / shots


DYNAMIC = [*DYNAMIC_CASES, *(f"random_{seed}" for seed in range(6))]
"""Dynamic circuits every exact backend must get right (or, if its exact results are
noisy, refuse): named cases, then random ones by seed."""


def dynamic_circuit(case: str) -> QuantumCircuit:
    """A circuit of DYNAMIC by name."""
    if case.startswith("random_"):
        return random_dynamic_circuit(int(case.removeprefix("random_")))
    return DYNAMIC_CASES[case]()


def _assert_distributions_equal(got: dict[str, float], want: dict[str, float], tol: float) -> None:
    for bitstring in got.keys() | want.keys():
        assert got.get(bitstring, 0.0) == pytest.approx(want.get(bitstring, 0.0), abs=tol), (
            bitstring
        )


def _refused(backend: QuantumBackend, err: CapabilityError) -> None:
    """A backend may refuse a dynamic circuit (one line, before any result), never answer
    wrongly; the refusal is shown as a skip with its reason."""
    assert "\n" not in str(err)
    pytest.skip(f"{backend.name} refuses this dynamic circuit: {err}")


def marked_for(n: int) -> str:
    return ("10" * n)[:n]


def exact(backend: QuantumBackend) -> bool:
    """Whether the backend computes probabilities and expectation values exactly."""
    return backend.capabilities.exact


def _exact_only(backend: QuantumBackend) -> None:
    if not exact(backend):
        pytest.skip(f"{backend.name} {backend.options.model_dump()} is not exact")


def _noiseless_only(backend: QuantumBackend) -> None:
    if not exact(backend):
        pytest.skip(f"{backend.name} {backend.options.model_dump()} is noisy")


class TestQuantumBackend:
    """Every quantum backend: pass a `backend` fixture (a QuantumBackend)."""

    @pytest.mark.parametrize("n", SIZES)
    def test_ghz_probabilities_are_exact(self, backend: QuantumBackend, n: int) -> None:
        _exact_only(backend)
        (probs,) = backend.probabilities([ghz(n)])
        assert probs.keys() == {"0" * n, "1" * n}
        assert probs["0" * n] == pytest.approx(0.5, abs=1e-9)
        assert probs["1" * n] == pytest.approx(0.5, abs=1e-9)

    @pytest.mark.parametrize("n", SIZES)
    def test_grover_probabilities_match_closed_form_and_statevector(
        self, backend: QuantumBackend, n: int
    ) -> None:
        _exact_only(backend)
        circuit = grover(marked_for(n))
        (probs,) = backend.probabilities([circuit])
        expected = grover_success_probability(n, grover_iterations(n))
        assert probs[marked_for(n)] == pytest.approx(expected, abs=1e-9)
        reference = exact_distribution(circuit)
        for bitstring in reference.keys() | probs.keys():
            assert probs.get(bitstring, 0.0) == pytest.approx(
                reference.get(bitstring, 0.0), abs=1e-9
            )

    def test_probabilities_follow_classical_bit_order(self, backend: QuantumBackend) -> None:
        _exact_only(backend)
        circuit = QuantumCircuit(3, 3)
        circuit.x(0)  # qubit 0 -> clbit 2, qubit 1 -> clbit 0, qubit 2 unmeasured -> clbit 1: 0
        circuit.measure(0, 2)
        circuit.measure(1, 0)
        (probs,) = backend.probabilities([circuit])
        assert probs == pytest.approx({"100": 1.0}, abs=1e-12)

    @pytest.mark.parametrize("n", [2, 5, 12])
    def test_sampled_counts_sit_within_binomial_tolerance(
        self, backend: QuantumBackend, n: int
    ) -> None:
        _noiseless_only(backend)
        circuits = [bell(), ghz(n), grover(marked_for(n))]
        results = backend.sample(circuits, shots=SHOTS, seed=11)
        for circuit, result in zip(circuits, results, strict=True):
            assert sum(result.counts.values()) == SHOTS == result.shots
            reference = exact_distribution(circuit)
            assert set(result.counts) <= set(reference)
            for bitstring, p in reference.items():
                frequency = result.counts.get(bitstring, 0) / SHOTS
                assert abs(frequency - p) <= binomial_tolerance(p, SHOTS), (circuit.name, bitstring)

    def test_seed_reproduces_counts(self, backend: QuantumBackend) -> None:
        if backend.resolved_tier(backend.options) == "hardware":
            pytest.skip("real hardware has no seed")
        circuit = grover("101")
        first = backend.sample([circuit], shots=500, seed=5)[0].counts
        again = backend.sample([circuit], shots=500, seed=5)[0].counts
        assert first == again

    def test_marked_item_is_most_frequent_even_with_noise(self, backend: QuantumBackend) -> None:
        (result,) = backend.sample([grover("101")], shots=2000, seed=3)
        assert max(result.counts, key=result.counts.__getitem__) == "101"
        assert sum(result.counts.values()) == 2000
        assert all(len(k) == 3 for k in result.counts)

    @pytest.mark.parametrize("observable", ["ZZZ", "XXX", "IZX", "YYX"])
    def test_expectation_values(self, backend: QuantumBackend, observable: str) -> None:
        circuit = ghz(3)
        expected = exact_expectation(circuit, observable)
        if exact(backend):
            (value,) = backend.estimate([circuit], [observable])
            assert value == pytest.approx(expected, abs=1e-9)
        else:
            (value,) = backend.estimate([circuit], [observable], precision=0.02, seed=9)
            if expected == pytest.approx(0, abs=1e-12):
                assert abs(value) < 0.1
            else:  # device noise shrinks correlations towards 0; it never flips or grows them
                assert 0.3 <= value / expected <= 1 + 0.1 / abs(expected)

    def test_pauli_sum_expectation(self, backend: QuantumBackend) -> None:
        _exact_only(backend)
        observable = SparsePauliOp(["ZZI", "IXX", "XII"], coeffs=[0.5, -1.5, 2.0])
        circuit = grover("011")
        (value,) = backend.estimate([circuit], [observable])
        state_value = sum(
            c.real * exact_expectation(circuit, p.to_label())
            for p, c in zip(observable.paulis, observable.coeffs, strict=True)
        )
        assert value == pytest.approx(state_value, abs=1e-9)

    def test_too_wide_circuit_fails_before_compute(self, backend: QuantumBackend) -> None:
        limit = backend.capabilities.max_qubits
        if limit is None:
            pytest.skip("width known only after a device is chosen")
        wide = QuantumCircuit(limit + 1)
        wide.measure_all()
        with pytest.raises(CapabilityError, match=f"at most {limit}"):
            backend.sample([wide], shots=10)

    def test_non_exact_backends_refuse_exact_requests(self, backend: QuantumBackend) -> None:
        if exact(backend):
            pytest.skip("exact backend")
        with pytest.raises(CapabilityError, match="no exact results"):
            backend.probabilities([bell()])
        with pytest.raises(CapabilityError, match="no exact results"):
            backend.estimate([bell()], ["ZZ"])

    @pytest.mark.parametrize("case", DYNAMIC)
    def test_dynamic_probabilities_match_deferred_measurement(
        self, backend: QuantumBackend, case: str
    ) -> None:
        """Mid-circuit measurement, reset, feed-forward and several registers, against the
        deferred-measurement unitary evaluated by qiskit.quantum_info."""
        _exact_only(backend)
        circuit = dynamic_circuit(case)
        try:
            (probs,) = backend.probabilities([circuit])
        except CapabilityError as err:
            _refused(backend, err)
            return
        _assert_distributions_equal(probs, deferred_distribution(circuit), 1e-9)

    @pytest.mark.parametrize("case", ["conditional_x", "teleport", "reset_and_reuse", "random_3"])
    def test_dynamic_expectation_values_match_deferred_measurement(
        self, backend: QuantumBackend, case: str
    ) -> None:
        _exact_only(backend)
        circuit = dynamic_circuit(case)
        n = circuit.num_qubits
        for label in ("Z" * n, "X" + "Z" * (n - 1), "I" * (n - 1) + "Y"):
            try:
                (value,) = backend.estimate([circuit], [label])
            except CapabilityError as err:
                _refused(backend, err)
                return
            assert value == pytest.approx(deferred_expectation(circuit, label), abs=1e-9), label

    @pytest.mark.parametrize(
        "case", ["conditional_x", "teleport", "nested_conditionals", "switch", "random_1"]
    )
    def test_dynamic_circuits_sample_their_exact_distribution(
        self, backend: QuantumBackend, case: str
    ) -> None:
        _noiseless_only(backend)
        circuit = dynamic_circuit(case)
        try:
            (result,) = backend.sample([circuit], shots=SHOTS, seed=17)
        except CapabilityError as err:
            pytest.skip(f"{backend.name} cannot sample this dynamic circuit: {err}")
        reference = deferred_distribution(circuit)
        assert set(result.counts) <= set(reference)
        for bitstring, p in reference.items():
            frequency = result.counts.get(bitstring, 0) / SHOTS
            assert abs(frequency - p) <= binomial_tolerance(p, SHOTS), (case, bitstring)

    def test_identical_circuits_in_one_batch_are_independent_yet_reproducible(
        self, backend: QuantumBackend
    ) -> None:
        if backend.resolved_tier(backend.options) == "hardware":
            pytest.skip("real hardware has no seed")
        circuit = QuantumCircuit(4, name="uniform")
        circuit.h(range(4))
        circuit.measure_all()
        first = [r.counts for r in backend.sample([circuit, circuit], shots=400, seed=21)]
        again = [r.counts for r in backend.sample([circuit, circuit], shots=400, seed=21)]
        assert first == again
        assert first[0] != first[1]  # equal counts over 16 outcomes by chance: ~1e-20

    @pytest.mark.parametrize("seed", [-1, 2**32, 1.5])
    def test_bad_seeds_are_refused_before_compute(self, backend: QuantumBackend, seed) -> None:
        with pytest.raises(CapabilityError, match="seed must be an integer"):
            backend.sample([bell()], shots=10, seed=seed)

    def test_unbound_parameters_are_refused_in_one_line(self, backend: QuantumBackend) -> None:
        from qiskit.circuit import Parameter

        circuit = QuantumCircuit(1, 1, name="unbound")
        circuit.rx(Parameter("theta"), 0)
        circuit.measure(0, 0)
        with pytest.raises(CapabilityError, match="unbound parameters: theta"):
            backend.sample([circuit], shots=10)

    def test_estimator_pubs_broadcast_as_qiskits_reference(self, backend: QuantumBackend) -> None:
        """run_estimator against Qiskit's StatevectorEstimator on the same pubs: three
        parameter values (bindings shape (3,)) broadcast against observables (2, 1)."""
        from qiskit.circuit import Parameter
        from qiskit.primitives import StatevectorEstimator

        theta = Parameter("θ")
        circuit = QuantumCircuit(2, name="ansatz")
        circuit.ry(theta, 0)
        circuit.cx(0, 1)
        circuit.rx(theta / 2, 1)
        pub = (circuit, [["ZZ"], ["XX"]], [[0.2], [1.1], [2.5]])
        want = StatevectorEstimator().run([pub]).result()[0].data.evs
        precision = 0.0 if exact(backend) else 0.02
        (got,) = backend.run_estimator([pub], precision=precision, seed=4)
        assert got.data.evs.shape == want.shape == (2, 3)
        assert np.all(got.data.stds == precision)
        if exact(backend):
            assert np.allclose(got.data.evs, want, atol=1e-9)
        else:  # noise shrinks correlations; it never flips them
            assert np.all(np.abs(got.data.evs - want) < 0.5)

    def test_sampler_gives_each_register_its_bit_array(self, backend: QuantumBackend) -> None:
        from qiskit import ClassicalRegister, QuantumRegister
        from qiskit.circuit import Parameter

        theta = Parameter("θ")
        left, right = ClassicalRegister(1, "left"), ClassicalRegister(2, "right")
        circuit = QuantumCircuit(QuantumRegister(3), left, right, name="registers")
        circuit.ry(theta, 0)
        circuit.cx(0, 1)
        circuit.x(2)
        circuit.measure(0, left[0])
        circuit.measure([1, 2], right)
        (result,) = backend.run_sampler([(circuit, [[0.0], [np.pi / 2]])], shots=2000, seed=6)
        assert result.data.left.shape == result.data.right.shape == (2,)
        assert result.data.left.num_shots == 2000 and result.data.right.num_bits == 2
        if not exact(backend):
            return
        assert result.data.left[0].get_counts() == {"0": 2000}
        assert result.data.right[0].get_counts() == {"10": 2000}
        half = result.data.left[1].get_counts()
        assert abs(half["1"] / 2000 - 0.5) <= binomial_tolerance(0.5, 2000)
        left_bits = result.data.left[1].to_bool_array()[:, -1]  # the same shots, in order
        right_low = result.data.right[1].to_bool_array()[:, -1]
        assert np.array_equal(left_bits, right_low)  # qubits 0 and 1 agree on every shot

    def test_to_dict_recreates_the_backend(self, backend: QuantumBackend) -> None:
        record = backend.to_dict()
        assert isinstance(backend, get_backend_class(record["backend"]))  # registered as named
        again = type(backend).from_dict(record)  # a GPU tier's CPU stand-in rebuilds as itself
        assert again.to_dict() == record
        assert record["options"] == backend.options.model_dump(mode="json")

    def test_shot_limit_is_enforced_before_compute(self, backend: QuantumBackend) -> None:
        backend.validate([bell()])  # a device-backed backend learns its limits here
        limit = backend.capabilities.max_shots
        if limit is None:
            pytest.skip(f"{backend.name} has no shot limit")
        with pytest.raises(CapabilityError, match=f"at most {limit} shots"):
            backend.sample([bell()], shots=limit + 1)
