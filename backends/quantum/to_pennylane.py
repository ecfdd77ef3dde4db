"""Qiskit circuits -> PennyLane operations, gate by gate, without pennylane-qiskit.

Gates outside the table are first decomposed by Qiskit's transpiler into gates inside
it. Wire i is Qiskit qubit i. Global phase is dropped: no measurement can see it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

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
    {"x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u"}
    | {"cx", "cy", "cz", "ch", "swap", "iswap", "ecr", "crx", "cry", "crz", "cp"}
    | {"rxx", "ryy", "rzz", "ccx", "ccz", "cswap", "mcx", "diagonal"}
)
"""Gate names converted directly; any X with controls (cx_o0, ccx_o1, mcx, ...) is too."""


def _is_controlled_x(op: Any) -> bool:
    base = getattr(op, "base_gate", None)
    return base is not None and base.name == "x"


def _unknown(circuit: QuantumCircuit) -> set[str]:
    return {
        i.operation.name
        for i in circuit.data
        if i.operation.name not in _SUPPORTED | _IGNORED | {"measure"}
        and not _is_controlled_x(i.operation)
    }


_MAX_DECOMPOSITIONS = 10


def _decomposed(circuit: QuantumCircuit) -> QuantumCircuit:
    """Expand gates outside the table by their Qiskit definitions until none is left."""
    for _ in range(_MAX_DECOMPOSITIONS):
        unknown = _unknown(circuit)
        if not unknown:
            return circuit
        circuit = circuit.decompose(gates_to_decompose=sorted(unknown))
    return circuit  # what is still unknown is reported gate by gate by the caller


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
        params: list[Any] = [] if op.name == "diagonal" else [float(p) for p in op.params]
        if op.name == "diagonal":  # PennyLane indexes from the first wire, Qiskit from qubit 0
            ops.append(qml.DiagonalQubitUnitary(np.asarray(op.params), wires=wires[::-1]))
        elif op.name in table:
            ops.append(table[op.name](*params, wires=wires))
        elif _is_controlled_x(op):  # mcx, and open-controlled variants such as cx_o0
            state = op.ctrl_state
            values = [bool((state >> i) & 1) for i in range(op.num_ctrl_qubits)]
            ops.append(qml.MultiControlledX(wires=wires, control_values=values))
        else:
            raise CapabilityError(
                f"circuit {circuit.name!r}: operation {op.name!r} has no PennyLane equivalent"
            )
    return ops
