"""Qiskit circuits -> PennyLane operations, gate by gate, without pennylane-qiskit.

Gates outside the table are first decomposed by Qiskit's transpiler into gates inside
it. Wire i is Qiskit qubit i. Global phase is dropped: no measurement can see it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import CapabilityError

if TYPE_CHECKING:
    from pennylane.operation import Operator
    from qiskit import QuantumCircuit

_IGNORED = frozenset({"barrier", "delay", "global_phase", "id"})


def _table() -> dict[str, Callable[..., Operator]]:
    import pennylane as qml

    def dagger(op: type) -> Callable[..., Operator]:
        return lambda *a, wires: qml.adjoint(op(*a, wires=wires))

    return {
        "x": qml.PauliX,
        "y": qml.PauliY,
        "z": qml.PauliZ,
        "h": qml.Hadamard,
        "s": qml.S,
        "sdg": dagger(qml.S),
        "t": qml.T,
        "tdg": dagger(qml.T),
        "sx": qml.SX,
        "sxdg": dagger(qml.SX),
        "rx": qml.RX,
        "ry": qml.RY,
        "rz": qml.RZ,
        "p": qml.PhaseShift,
        "u": qml.U3,
        "cx": qml.CNOT,
        "cy": qml.CY,
        "cz": qml.CZ,
        "ch": qml.CH,
        "swap": qml.SWAP,
        "iswap": qml.ISWAP,
        "ecr": qml.ECR,
        "crx": qml.CRX,
        "cry": qml.CRY,
        "crz": qml.CRZ,
        "cp": qml.ControlledPhaseShift,
        "rxx": qml.IsingXX,
        "ryy": qml.IsingYY,
        "rzz": qml.IsingZZ,
        "ccx": qml.Toffoli,
        "ccz": qml.CCZ,
        "cswap": qml.CSWAP,
    }


_SUPPORTED = frozenset(
    {"x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u"}
    | {"cx", "cy", "cz", "ch", "swap", "iswap", "ecr", "crx", "cry", "crz", "cp"}
    | {"rxx", "ryy", "rzz", "ccx", "ccz", "cswap", "mcx", "diagonal"}
)
"""Gate names converted directly; any X with controls (cx_o0, ccx_o1, mcx, ...) is too."""


def _is_controlled_x(op: Any) -> bool:
    base = getattr(op, "base_gate", None)
    return base is not None and base.name == "x"


_NOT_GATES = frozenset(
    {"measure", "reset", "if_else", "for_loop", "box", "while_loop", "switch_case", "store"}
)
"""Handled (or refused by name) by the converter itself, never decomposed."""


def _unknown(circuit: QuantumCircuit) -> set[str]:
    return {
        i.operation.name
        for i in circuit.data
        if i.operation.name not in _SUPPORTED | _IGNORED | _NOT_GATES
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
    """The gates of a measurement-free Qiskit circuit with bound parameters as PennyLane
    operations (built outside any queue)."""
    import pennylane as qml

    if circuit.parameters:
        raise CapabilityError(f"circuit {circuit.name!r} has unbound parameters")
    with qml.queuing.AnnotatedQueue() as queue:
        apply_circuit(circuit)
    return list(queue.queue)


def to_pennylane(circuit: QuantumCircuit) -> Callable[..., dict[int, Any]]:
    """The circuit as a PennyLane quantum function of its parameters, in the order of
    `circuit.parameters`; it returns {classical bit: its last MeasurementValue}.

    Parameters stay PennyLane parameters (autograd, torch or JAX values pass through gates
    and linear parameter expressions such as 2θ + 1), so gradients by parameter shift or
    adjoint work; measurements become `qml.measure`, resets `qml.measure(reset=True)`,
    `if_test`/`else` and for loops `qml.cond` and unrolling.

    Example:
        >>> import pennylane as qml
        >>> from qiskit import QuantumCircuit
        >>> from qiskit.circuit import Parameter
        >>> theta = Parameter("θ")
        >>> qc = QuantumCircuit(1)
        >>> _ = qc.rx(theta, 0)
        >>> qfunc = to_pennylane(qc)
        >>> @qml.qnode(qml.device("default.qubit", wires=1))
        ... def energy(x):
        ...     qfunc(x)
        ...     return qml.expval(qml.PauliZ(0))
        >>> round(float(energy(0.5)), 6)
        0.877583
    """
    parameters = list(circuit.parameters)

    def qfunc(*values: Any) -> dict[int, Any]:
        if len(values) != len(parameters):
            raise CapabilityError(
                f"circuit {circuit.name!r} takes {len(parameters)} parameters "
                f"({', '.join(p.name for p in parameters)}), got {len(values)}"
            )
        return apply_circuit(circuit, dict(zip(parameters, values, strict=True)))

    return qfunc


def apply_circuit(
    circuit: QuantumCircuit, values: Mapping[Any, Any] | None = None
) -> dict[int, Any]:
    """Queue the circuit's operations in the active PennyLane context (a QNode, a tape);
    returns {classical bit: its last MeasurementValue}. Unsupported instructions are
    refused by name."""
    walker = _Converter(circuit, dict(values or {}))
    walker.walk(
        circuit,
        {q: i for i, q in enumerate(circuit.qubits)},
        {c: i for i, c in enumerate(circuit.clbits)},
        condition=None,
    )
    return walker.measured


class _Converter:
    """Walks a circuit, queueing PennyLane operations. Conditional blocks are flattened:
    each gate inside is conditioned on the conjunction of every enclosing condition (a
    MeasurementValue expression), so no `qml.cond` is ever nested — lightning's
    mid-circuit measurements fail inside nested ones."""

    def __init__(self, circuit: QuantumCircuit, values: dict[Any, Any]) -> None:
        self.circuit = circuit
        self.values = values
        self.table = _table()
        self.measured: dict[int, Any] = {}

    def refuse(self, what: str) -> CapabilityError:
        return CapabilityError(f"circuit {self.circuit.name!r}: {what} has no PennyLane equivalent")

    def walk(
        self, block: QuantumCircuit, qmap: dict[Any, int], cmap: dict[Any, int], condition: Any
    ) -> None:
        """Queue `block`; `condition` is None outside conditionals, else the expression
        under which every gate of the block applies."""
        import pennylane as qml

        for instruction in _decomposed(block).data:
            op = instruction.operation
            if op.name in _IGNORED:
                continue
            wires = [qmap[q] for q in instruction.qubits]
            clbits = [cmap[c] for c in instruction.clbits]
            if op.name in {"measure", "reset"}:
                if condition is not None:
                    raise self.refuse(f"a {op.name} inside a conditional block")
                value = qml.measure(wires[0], reset=op.name == "reset")
                if op.name == "measure":
                    self.measured[clbits[0]] = value
            elif op.name in {"if_else", "for_loop", "box"}:
                self.control_flow(op, wires, clbits, cmap, condition)
            elif condition is None:
                self.gate(op, wires)
            else:
                qml.cond(condition, self.gate)(op, wires)

    def control_flow(
        self, op: Any, wires: list[int], clbits: list[int], cmap: dict[Any, int], condition: Any
    ) -> None:
        def walk(block: QuantumCircuit, inside: Any) -> None:
            qm = dict(zip(block.qubits, wires, strict=True))
            cm = {**cmap, **dict(zip(block.clbits, clbits, strict=True))}
            self.walk(block, qm, cm, inside)

        def both(inner: Any) -> Any:
            return inner if condition is None else condition & inner

        if op.name == "box":
            walk(op.blocks[0], condition)
        elif op.name == "for_loop":
            indexset, parameter, body = op.params
            for value in indexset:
                walk(
                    body if parameter is None else body.assign_parameters({parameter: value}),
                    condition,
                )
        else:
            test = self.condition(op.condition, cmap)
            if isinstance(test, bool):  # reads bits never written: known now
                if test or len(op.blocks) > 1:
                    walk(op.blocks[0 if test else 1], condition)
            else:
                walk(op.blocks[0], both(test))
                if len(op.blocks) > 1:
                    walk(op.blocks[1], both(~test))

    def condition(self, condition: Any, cmap: dict[Any, int]) -> Any:
        """A MeasurementValue expression (or a bool when no bit it reads was measured)."""
        from qiskit.circuit import ClassicalRegister, Clbit

        if not isinstance(condition, tuple):
            raise self.refuse("a condition written as a classical expression")
        target, wanted = condition
        bits = [target] if isinstance(target, Clbit) else list(target)
        if not isinstance(target, Clbit | ClassicalRegister):
            raise self.refuse(f"a condition on {target!r}")
        value: Any = 0
        for i, bit in enumerate(bits):
            measured = self.measured.get(cmap[bit])
            if measured is not None:
                value = measured * (1 << i) + value
        return value == int(wanted)  # a bool when no bit it reads was measured

    def gate(self, op: Any, wires: list[int]) -> None:
        import pennylane as qml

        if op.name == "diagonal":  # PennyLane indexes from the first wire, Qiskit from qubit 0
            qml.DiagonalQubitUnitary(np.asarray(op.params), wires=wires[::-1])
        elif op.name in self.table:
            self.table[op.name](*[self.parameter(p) for p in op.params], wires=wires)
        elif _is_controlled_x(op):  # mcx, and open-controlled variants such as cx_o0
            state = op.ctrl_state
            values = [bool((state >> i) & 1) for i in range(op.num_ctrl_qubits)]
            qml.MultiControlledX(wires=wires, control_values=values)
        else:
            raise self.refuse(f"operation {op.name!r}")

    def parameter(self, p: Any) -> Any:
        """A gate parameter: a number, or a linear expression of the bound parameters."""
        from qiskit.circuit import ParameterExpression

        if not isinstance(p, ParameterExpression):
            return float(p)
        if not p.parameters:
            return float(p)
        missing = [q.name for q in p.parameters if q not in self.values]
        if missing:
            raise CapabilityError(
                f"circuit {self.circuit.name!r} has unbound parameters: {', '.join(missing)}"
            )
        offset = p.bind(dict.fromkeys(p.parameters, 0.0))
        result: Any = float(offset)
        for q in p.parameters:
            slope = p.gradient(q)
            if isinstance(slope, ParameterExpression) and slope.parameters:
                raise self.refuse(f"the nonlinear parameter expression {p}")
            result = result + float(slope) * self.values[q]
        return result
