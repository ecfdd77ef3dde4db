"""Qiskit circuits -> PennyLane operations, gate by gate, without pennylane-qiskit.

Gates outside the table are first decomposed by Qiskit's transpiler into gates inside
it. Wire i is Qiskit qubit i. Global phase is dropped: no measurement can see it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import CapabilityError

if TYPE_CHECKING:
    from pennylane.operation import Operator
    from qiskit import QuantumCircuit

_IGNORED = frozenset({"barrier", "delay", "global_phase", "id"})


def _table() -> dict[str, Callable[..., Operator]]:
    import pennylane as qml

    def dagger(op: type) -> Callable[..., Operator]:
        return lambda *a, wires: qml.adjoint(op(*a, wires=wires))

    return {
        "x": qml.PauliX, "y": qml.PauliY, "z": qml.PauliZ, "h": qml.Hadamard,
        "s": qml.S, "sdg": dagger(qml.S), "t": qml.T, "tdg": dagger(qml.T),
        "sx": qml.SX, "sxdg": dagger(qml.SX),
        "rx": qml.RX, "ry": qml.RY, "rz": qml.RZ, "p": qml.PhaseShift, "u": qml.U3,
        "cx": qml.CNOT, "cy": qml.CY, "cz": qml.CZ, "ch": qml.CH, "swap": qml.SWAP,
        "iswap": qml.ISWAP, "ecr": qml.ECR,
        "crx": qml.CRX, "cry": qml.CRY, "crz": qml.CRZ, "cp": qml.ControlledPhaseShift,
        "rxx": qml.IsingXX, "ryy": qml.IsingYY, "rzz": qml.IsingZZ,
        "ccx": qml.Toffoli, "ccz": qml.CCZ, "cswap": qml.CSWAP,
    }  # fmt: skip


_SUPPORTED = frozenset(
    ["x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u"]
    + ["cx", "cy", "cz", "ch", "swap", "iswap", "ecr", "crx", "cry", "crz", "cp"]
    + ["rxx", "ryy", "rzz", "ccx", "ccz", "cswap", "mcx"]
)


def _decomposed(circuit: QuantumCircuit) -> QuantumCircuit:
    names = set(circuit.count_ops()) - _IGNORED - {"measure"}
    if names <= _SUPPORTED:
        return circuit
    from qiskit import transpile

    return transpile(
        circuit, basis_gates=sorted(_SUPPORTED | {"measure"}), optimization_level=0
    )


def to_pennylane_ops(circuit: QuantumCircuit) -> list[Operator]:
    """The gates of a measurement-free Qiskit circuit as PennyLane operations."""
    import pennylane as qml

    if circuit.parameters:
        raise CapabilityError(f"circuit {circuit.name!r} has unbound parameters")
    table = _table()
    ops: list[Operator] = []
    for instruction in _decomposed(circuit).data:
        op = instruction.operation
        if op.name in _IGNORED:
            continue
        wires = [circuit.find_bit(q).index for q in instruction.qubits]
        params: list[Any] = [float(p) for p in op.params]
        if op.name == "mcx":
            state = op.ctrl_state
            values = [bool((state >> i) & 1) for i in range(len(wires) - 1)]
            ops.append(qml.MultiControlledX(wires=wires, control_values=values))
        elif op.name in table:
            ops.append(table[op.name](*params, wires=wires))
        else:
            raise CapabilityError(
                f"circuit {circuit.name!r}: operation {op.name!r} has no PennyLane equivalent"
            )
    return ops
