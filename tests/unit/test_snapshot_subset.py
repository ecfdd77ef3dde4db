"""A snapshot cut down to the qubits a request uses (what quantum.ibm_fake simulates):
its calibration is the device's, and its outcomes are the whole device's."""

from __future__ import annotations

import numpy as np
import pytest
from qiskit import QuantumCircuit
from qiskit.quantum_info import SparsePauliOp
from qiskit.transpiler import generate_preset_pass_manager

from substrates.backends.quantum.device_snapshots import load_snapshot
from substrates.backends.quantum.snapshot_subset import narrowed, sub_simulator, sub_target


@pytest.fixture(scope="module")
def device():
    return load_snapshot("fake_brisbane")


def _isa(device, circuit: QuantumCircuit) -> QuantumCircuit:
    manager = generate_preset_pass_manager(optimization_level=1, backend=device, seed_transpiler=3)
    return manager.run(circuit)


def test_the_kept_qubits_carry_the_device_calibration(device) -> None:
    kept = [11, 12, 17]
    target = sub_target(device.target, kept)
    assert target.num_qubits == 3 and target.dt == device.target.dt
    for name in ("sx", "measure"):
        for new, old in enumerate(kept):
            assert target[name][(new,)] == device.target[name][(old,)]
    two_qubit = {qargs for qargs in device.target["ecr"] if set(qargs) <= set(kept)}
    assert {tuple(kept[q] for q in qargs) for qargs in target["ecr"]} == two_qubit
    assert target.qubit_properties[2].t1 == device.target.qubit_properties[17].t1
    assert "if_else" in target.operation_names  # global instructions kept


def test_outcomes_on_the_subset_equal_the_whole_device(device) -> None:
    """Sampled on the 127-qubit snapshot (Aer drops its idle qubits) and on the cut-down
    one: the same noisy distribution, to sampling noise."""
    from qiskit_aer import AerSimulator

    ghz = QuantumCircuit(3)
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.measure_all()
    isa = _isa(device, ghz)
    kept, (narrow,), _ = narrowed(device.target, [isa], [[]])
    assert len(kept) == 3 and narrow.num_qubits == 3 and narrow.qregs[0].name == "q"
    shots = 40_000
    whole = AerSimulator.from_backend(device).run(isa, shots=shots, seed_simulator=1)
    part = sub_simulator(device, kept, AerSimulator).run(narrow, shots=shots, seed_simulator=2)
    a, b = whole.result().get_counts(), part.result().get_counts()
    distance = 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in {*a, *b}) / shots
    assert distance < 0.015, (a, b)
    assert a.get("000", 0) + a.get("111", 0) < 0.99 * shots  # the noise is there to compare


def test_observables_keep_their_support_and_coefficients(device) -> None:
    bell = QuantumCircuit(2)
    bell.h(0)
    bell.cx(0, 1)
    isa = _isa(device, bell)
    observable = SparsePauliOp(["ZZ", "XI"], [0.5, -2.0]).apply_layout(isa.layout)
    wide = SparsePauliOp("Z" + "I" * 126)  # reads qubit 126, which the circuit never touches
    kept, _, ((narrow, reads),) = narrowed(device.target, [isa], [[observable, wide]])
    assert 126 in kept and len(kept) == 3
    assert np.allclose(narrow.coeffs, [0.5, -2.0])
    assert [p.to_label().count("I") for p in narrow.paulis] == [1, 2]
    assert reads.paulis[0].to_label() == "ZII"  # qubit 126 is the last kept
