"""Our Qiskit -> PennyLane conversion, gate by gate, against qiskit.quantum_info."""

from __future__ import annotations

import numpy as np
import pennylane as qml
import pytest
from qiskit import QuantumCircuit
from qiskit.circuit.library import DiagonalGate, MCXGate, QFTGate
from qiskit.quantum_info import Statevector

from substrates.backends.quantum.to_pennylane import _SUPPORTED, to_pennylane_ops
from substrates.backends.registry import create_backend
from substrates.errors import CapabilityError

ANGLES = (0.3, -1.1, 2.4)


def _prepared(n: int) -> QuantumCircuit:
    """A generic entangled state, so each gate acts on non-trivial amplitudes."""
    circuit = QuantumCircuit(n)
    rng = np.random.default_rng(1)
    for q in range(n):
        circuit.u(*rng.uniform(0, np.pi, 3), q)
    for q in range(n - 1):
        circuit.cx(q, q + 1)
    return circuit


def _pennylane_state(circuit: QuantumCircuit) -> np.ndarray:
    n = circuit.num_qubits
    ops = to_pennylane_ops(circuit)  # built outside the QNode, so queued once, by apply

    @qml.qnode(qml.device("default.qubit", wires=n))
    def state():
        for op in ops:
            qml.apply(op)
        return qml.state()

    # PennyLane's wire 0 is the most significant bit; Qiskit's qubit 0 the least.
    return np.asarray(state()).reshape([2] * n).transpose(range(n)[::-1]).reshape(-1)


def _assert_same_state(circuit: QuantumCircuit) -> None:
    expected = Statevector(circuit).data
    got = _pennylane_state(circuit)
    overlap = abs(np.vdot(expected, got))
    assert overlap == pytest.approx(1.0, abs=1e-10), circuit.count_ops()


GATES = {
    "x": lambda c: c.x(1),
    "y": lambda c: c.y(2),
    "z": lambda c: c.z(0),
    "h": lambda c: c.h(1),
    "s": lambda c: c.s(0),
    "sdg": lambda c: c.sdg(1),
    "t": lambda c: c.t(2),
    "tdg": lambda c: c.tdg(0),
    "sx": lambda c: c.sx(1),
    "sxdg": lambda c: c.sxdg(2),
    "rx": lambda c: c.rx(ANGLES[0], 0),
    "ry": lambda c: c.ry(ANGLES[1], 1),
    "rz": lambda c: c.rz(ANGLES[2], 2),
    "p": lambda c: c.p(ANGLES[0], 1),
    "u": lambda c: c.u(*ANGLES, 2),
    "cx": lambda c: c.cx(2, 0),
    "cy": lambda c: c.cy(0, 2),
    "cz": lambda c: c.cz(1, 2),
    "ch": lambda c: c.ch(2, 1),
    "swap": lambda c: c.swap(0, 2),
    "iswap": lambda c: c.iswap(1, 0),
    "ecr": lambda c: c.ecr(2, 0),
    "crx": lambda c: c.crx(ANGLES[0], 1, 0),
    "cry": lambda c: c.cry(ANGLES[1], 0, 2),
    "crz": lambda c: c.crz(ANGLES[2], 2, 1),
    "cp": lambda c: c.cp(ANGLES[0], 0, 1),
    "rxx": lambda c: c.rxx(ANGLES[0], 0, 2),
    "ryy": lambda c: c.ryy(ANGLES[1], 1, 2),
    "rzz": lambda c: c.rzz(ANGLES[2], 2, 0),
    "ccx": lambda c: c.ccx(2, 0, 1),
    "ccz": lambda c: c.ccz(0, 1, 2),
    "cswap": lambda c: c.cswap(1, 2, 0),
    "mcx": lambda c: c.append(MCXGate(3), [2, 0, 3, 1]),
    "diagonal": lambda c: c.append(DiagonalGate(list(np.exp(1j * np.arange(8) ** 1.5))), [3, 0, 2]),
}


def test_every_supported_gate_has_a_case() -> None:
    assert set(GATES) == set(_SUPPORTED)


@pytest.mark.parametrize("name", sorted(GATES))
def test_gate_matches_qiskit(name: str) -> None:
    circuit = _prepared(4)
    GATES[name](circuit)
    assert name in circuit.count_ops()
    _assert_same_state(circuit)


@pytest.mark.parametrize("controls", [1, 2, 3])
def test_open_controls_convert_directly(controls: int) -> None:
    for ctrl_state in range(2**controls):
        circuit = _prepared(4)
        circuit.append(MCXGate(controls, ctrl_state=ctrl_state), [3, 1, 0, 2][: controls + 1])
        closed = ctrl_state == 2**controls - 1  # all controls closed: the table's CNOT/Toffoli
        expected = {"MultiControlledX"} if not closed else {"CNOT", "Toffoli", "MultiControlledX"}
        assert to_pennylane_ops(circuit)[-1].name in expected
        _assert_same_state(circuit)


def test_gates_outside_the_table_are_decomposed() -> None:
    circuit = _prepared(4)
    circuit.append(QFTGate(3), [0, 2, 3])
    circuit.r(0.4, 0.9, 1)
    circuit.rccx(0, 1, 2)
    _assert_same_state(circuit)


def test_unbound_parameters_are_refused() -> None:
    from qiskit.circuit import Parameter

    circuit = QuantumCircuit(1)
    circuit.rx(Parameter("theta"), 0)
    with pytest.raises(CapabilityError, match="unbound parameters"):
        to_pennylane_ops(circuit)


def test_table_gates_keep_their_native_pennylane_class() -> None:
    circuit = QuantumCircuit(3)
    circuit.cx(0, 1)
    circuit.ccx(0, 1, 2)
    circuit.append(MCXGate(2), [0, 1, 2])
    assert [op.name for op in to_pennylane_ops(circuit)] == ["CNOT", "Toffoli", "Toffoli"]


def _parametrised() -> tuple[QuantumCircuit, list]:
    from qiskit.circuit import Parameter

    theta, phi, lam = Parameter("θ"), Parameter("φ"), Parameter("λ")
    circuit = QuantumCircuit(2, name="ansatz")
    circuit.ry(theta, 0)
    circuit.rx(2 * phi + 0.3, 1)  # a linear expression stays differentiable
    circuit.cx(0, 1)
    circuit.rz(lam - theta, 1)
    circuit.ry(phi, 1)
    return circuit, list(circuit.parameters)


@pytest.mark.parametrize(
    ("device", "diff_method"),
    [
        ("pennylane_default", "parameter-shift"),
        ("pennylane_default", "adjoint"),
        ("pennylane_lightning", "adjoint"),
        ("pennylane_lightning", "parameter-shift"),
    ],
)
def test_gradients_through_the_backend_match_finite_differences(device, diff_method) -> None:
    from pennylane import numpy as pnp
    from qiskit.quantum_info import SparsePauliOp

    import substrates

    circuit, parameters = _parametrised()
    observable = SparsePauliOp(["XZ", "ZY", "YI"], coeffs=[0.7, -0.4, 1.1])
    energy = substrates.load_backend(device).qnode(circuit, observable, diff_method=diff_method)
    point = np.array([0.4, -0.9, 1.3])
    values = [pnp.array(v, requires_grad=True) for v in point]
    gradient = np.array(qml.grad(energy, argnums=[0, 1, 2])(*values))

    def reference(x: np.ndarray) -> float:  # qiskit.quantum_info on the bound circuit
        bound = circuit.assign_parameters(dict(zip(parameters, x, strict=True)))
        return float(np.real(Statevector(bound).expectation_value(observable)))

    step = 1e-6
    finite = [
        (reference(point + step * e) - reference(point - step * e)) / (2 * step) for e in np.eye(3)
    ]
    assert float(energy(*point)) == pytest.approx(reference(point), abs=1e-10)
    assert gradient == pytest.approx(finite, abs=1e-6)


def test_nonlinear_parameter_expressions_are_refused_by_name() -> None:
    from qiskit.circuit import Parameter

    from substrates.backends.quantum.to_pennylane import to_pennylane

    theta = Parameter("θ")
    circuit = QuantumCircuit(1, name="square")
    circuit.rx(theta * theta, 0)
    with qml.queuing.AnnotatedQueue(), pytest.raises(CapabilityError, match="nonlinear"):
        to_pennylane(circuit)(0.2)


def test_measurements_inside_conditionals_and_switches_are_refused_by_name() -> None:
    from qiskit import ClassicalRegister

    from substrates.backends.quantum.to_pennylane import apply_circuit

    inside = QuantumCircuit(2, 2, name="inside")
    inside.measure(0, 0)
    with inside.if_test((inside.clbits[0], 1)):
        inside.measure(1, 1)
    with qml.queuing.AnnotatedQueue(), pytest.raises(CapabilityError, match="a measure inside"):
        apply_circuit(inside)
    creg = ClassicalRegister(1)
    switch = QuantumCircuit(QuantumCircuit(1).qregs[0], creg, name="switch")
    switch.measure(0, 0)
    with switch.switch(creg) as case, case(0):
        switch.x(0)
    with qml.queuing.AnnotatedQueue(), pytest.raises(CapabilityError, match="'switch_case'"):
        apply_circuit(switch)


def test_estimates_reach_their_precision_whatever_the_coefficients() -> None:
    """⟨3·Z⟩ on |+⟩ is 0 with ±3 per shot: ⌈1/p²⌉ shots (as before) would give a standard
    error of 3p. Over 60 seeds the spread of the estimates stays at the target."""
    from qiskit.quantum_info import SparsePauliOp

    from substrates.backends.quantum.pennylane import shots_for

    circuit = QuantumCircuit(1, name="plus")
    circuit.h(0)
    observable = SparsePauliOp.from_list([("Z", 3.0), ("I", 5.0)])
    assert shots_for(observable, 0.1) == 900 and shots_for(observable, 0.0) is None
    backend = create_backend("quantum.pennylane", {"device": "default.qubit"})
    values = [
        backend.estimate([circuit], [observable], precision=0.1, seed=seed)[0] for seed in range(60)
    ]
    spread = float(np.std(values, ddof=1))
    assert abs(float(np.mean(values)) - 5.0) < 0.1 and 0.07 < spread < 0.13, spread
