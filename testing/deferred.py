"""An independent reference for dynamic circuits: the principle of deferred measurement.

Every classical bit write becomes a fresh ancilla qubit: a measurement of q into c is a CNOT
from q onto a new ancilla that stands for c from then on; a reset of q swaps q with a fresh
|0⟩ ancilla that is never touched again; a condition is computed onto a flag ancilla by
multi-controlled X gates on the ancillas it reads, and a conditioned block's gates become
gates controlled by the flag (and by every enclosing flag). The result is one unitary
circuit; the classical bits' distribution is the marginal of their last ancillas in its
state vector, computed by qiskit.quantum_info alone — no branching, no simulator, nothing
shared with `substrates.backends.quantum.dynamic` but Qiskit's circuit objects.

While loops have no deferred form and are not supported here.

Example:
    >>> from qiskit import QuantumCircuit
    >>> qc = QuantumCircuit(2, 2)
    >>> _ = qc.h(0)
    >>> _ = qc.measure(0, 0)
    >>> with qc.if_test((qc.clbits[0], 1)):
    ...     _ = qc.x(1)
    >>> _ = qc.measure(1, 1)
    >>> {k: round(v, 12) for k, v in deferred_distribution(qc).items()}
    {'00': 0.5, '11': 0.5}
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import CASE_DEFAULT, ClassicalRegister, Clbit, Gate
from qiskit.circuit.classical import expr
from qiskit.circuit.library import MCXGate, SwapGate, XGate
from qiskit.quantum_info import SparsePauliOp, Statevector

from ..backends.quantum.dynamic import strip_final_measurements

_SKIP = {"barrier", "delay", "global_phase", "id"}
_OPS = {
    "BIT_AND": operator.and_,
    "BIT_OR": operator.or_,
    "BIT_XOR": operator.xor,
    "LOGIC_AND": lambda a, b: int(bool(a and b)),
    "LOGIC_OR": lambda a, b: int(bool(a or b)),
    "EQUAL": operator.eq,
    "NOT_EQUAL": operator.ne,
    "LESS": operator.lt,
    "LESS_EQUAL": operator.le,
    "GREATER": operator.gt,
    "GREATER_EQUAL": operator.ge,
}


@dataclass
class _Deferred:
    num_qubits: int
    ops: list[tuple[Gate, list[int]]] = field(default_factory=list)
    last: dict[int, int] = field(default_factory=dict)  # clbit -> its current ancilla
    next_qubit: int = 0

    def fresh(self) -> int:
        self.next_qubit += 1
        return self.next_qubit - 1

    def gate(self, gate: Gate, qubits: list[int], controls: list[tuple[int, int]]) -> None:
        if not controls:
            self.ops.append((gate, qubits))
            return
        state = sum(value << i for i, (_, value) in enumerate(controls))
        controlled = gate.control(len(controls), ctrl_state=state)
        self.ops.append((controlled, [q for q, _ in controls] + qubits))

    def flip_if(self, target: int, controls: list[tuple[int, int]]) -> None:
        """X on `target` when every control holds its value (no controls: always)."""
        if not controls:
            self.ops.append((XGate(), [target]))
            return
        state = sum(value << i for i, (_, value) in enumerate(controls))
        self.ops.append(
            (MCXGate(len(controls), ctrl_state=state), [q for q, _ in controls] + [target])
        )


def _bit_value(bit: int, assignment: dict[int, int]) -> int:
    return assignment.get(bit, 0)


def _evaluate(item: Any, assignment: dict[int, int], cmap: dict[Any, int]) -> int:
    if isinstance(item, Clbit):
        return _bit_value(cmap[item], assignment)
    if isinstance(item, ClassicalRegister):
        return sum(_bit_value(cmap[b], assignment) << i for i, b in enumerate(item))
    if isinstance(item, expr.Var):
        return _evaluate(item.var, assignment, cmap)
    if isinstance(item, expr.Value):
        return int(item.value)
    if isinstance(item, expr.Cast):
        return _evaluate(item.operand, assignment, cmap)
    if isinstance(item, expr.Unary) and item.op.name == "LOGIC_NOT":
        return int(not _evaluate(item.operand, assignment, cmap))
    if isinstance(item, expr.Binary) and item.op.name in _OPS:
        left = _evaluate(item.left, assignment, cmap)
        return int(_OPS[item.op.name](left, _evaluate(item.right, assignment, cmap)))
    raise NotImplementedError(f"the deferred reference has no rule for {item!r}")


def _read_bits(item: Any, cmap: dict[Any, int]) -> list[int]:
    if isinstance(item, Clbit):
        return [cmap[item]]
    if isinstance(item, ClassicalRegister):
        return [cmap[b] for b in item]
    if isinstance(item, expr.Expr):
        return sorted({i for v in expr.iter_vars(item) for i in _read_bits(v.var, cmap)})
    return []


def _flag(d: _Deferred, test: Any, reads: list[int], cmap: dict[Any, int]) -> int:
    """A fresh ancilla set to `test(assignment)` of the classical bits `reads`."""
    flag = d.fresh()
    for values in itertools.product((0, 1), repeat=len(reads)):
        assignment = dict(zip(reads, values, strict=True))
        if any(v and bit not in d.last for bit, v in assignment.items()):
            continue  # a bit never written is 0
        if test(assignment, cmap):
            d.flip_if(flag, [(d.last[b], v) for b, v in assignment.items() if b in d.last])
    return flag


def _walk(
    d: _Deferred,
    circuit: QuantumCircuit,
    qmap: dict[Any, int],
    cmap: dict[Any, int],
    controls: list[tuple[int, int]],
) -> None:
    for instruction in circuit.data:
        op = instruction.operation
        qubits = [qmap[q] for q in instruction.qubits]
        clbits = [cmap[c] for c in instruction.clbits]
        if op.name in _SKIP:
            continue
        if op.name == "measure":  # under conditions K: new = K ? q : old = old ⊕ K∧q ⊕ K∧old
            new, old = d.fresh(), d.last.get(clbits[0])
            d.flip_if(new, [*controls, (qubits[0], 1)])
            if old is not None and controls:
                d.flip_if(new, [(old, 1)])
                d.flip_if(new, [*controls, (old, 1)])
            d.last[clbits[0]] = new
        elif op.name == "reset":
            d.gate(SwapGate(), [qubits[0], d.fresh()], controls)
        elif op.name in {"if_else", "switch_case", "for_loop", "box"}:
            _control_flow(d, op, qubits, clbits, cmap, controls)
        elif isinstance(op, Gate):
            d.gate(op, qubits, controls)
        else:
            raise NotImplementedError(f"the deferred reference has no rule for {op.name!r}")


def _control_flow(
    d: _Deferred,
    op: Any,
    qubits: list[int],
    clbits: list[int],
    cmap: dict[Any, int],
    controls: list[tuple[int, int]],
) -> None:
    def sub(block: QuantumCircuit, extra: list[tuple[int, int]]) -> None:
        qm = dict(zip(block.qubits, qubits, strict=True))
        _walk(
            d,
            block,
            qm,
            {**cmap, **dict(zip(block.clbits, clbits, strict=True))},
            [*controls, *extra],
        )

    if op.name == "box":
        sub(op.blocks[0], [])
    elif op.name == "for_loop":
        indexset, parameter, body = op.params
        for value in indexset:
            sub(body if parameter is None else body.assign_parameters({parameter: value}), [])
    elif op.name == "if_else":
        condition = op.condition
        if isinstance(condition, tuple):
            target, wanted = condition
            reads = _read_bits(target, cmap)
            flag = _flag(d, lambda a, cm: _evaluate(target, a, cm) == int(wanted), reads, cmap)
        else:
            reads = _read_bits(condition, cmap)
            flag = _flag(d, lambda a, cm: bool(_evaluate(condition, a, cm)), reads, cmap)
        sub(op.blocks[0], [(flag, 1)])
        if len(op.blocks) > 1 and op.blocks[1] is not None:
            sub(op.blocks[1], [(flag, 0)])
    else:  # switch_case: cases are disjoint; the default takes what no case listed
        listed = {
            int(v) for values, _ in op.cases_specifier() for v in values if v is not CASE_DEFAULT
        }
        reads = _read_bits(op.target, cmap)
        for values, block in op.cases_specifier():
            wanted = None if CASE_DEFAULT in values else {int(v) for v in values}
            test = lambda a, cm, w=wanted: _in_case(_evaluate(op.target, a, cm), w, listed)  # noqa: E731
            flag = _flag(d, test, reads, cmap)
            sub(block, [(flag, 1)])


def _in_case(value: int, wanted: set[int] | None, listed: set[int]) -> bool:
    return value not in listed if wanted is None else value in wanted


def deferred_circuit(circuit: QuantumCircuit) -> tuple[QuantumCircuit, dict[int, int]]:
    """The unitary circuit (original qubits first, then ancillas) and each written
    classical bit's final ancilla."""
    d = _Deferred(circuit.num_qubits, next_qubit=circuit.num_qubits)
    _walk(
        d,
        circuit,
        {q: i for i, q in enumerate(circuit.qubits)},
        {c: i for i, c in enumerate(circuit.clbits)},
        [],
    )
    out = QuantumCircuit(d.next_qubit)
    for gate, qubits in d.ops:
        out.append(gate, qubits)
    return out, dict(d.last)


def deferred_distribution(circuit: QuantumCircuit, cutoff: float = 1e-14) -> dict[str, float]:
    """Exact distribution of the classical bits (Qiskit bitstrings, clbit 0 rightmost)."""
    unitary, last = deferred_circuit(circuit)
    bits = sorted(last)
    marginal = Statevector(unitary).probabilities([last[b] for b in bits])
    out: dict[str, float] = {}
    for index in np.flatnonzero(marginal > cutoff):
        value = sum(((int(index) >> i) & 1) << bit for i, bit in enumerate(bits))
        key = format(value, f"0{circuit.num_clbits}b")
        out[key] = out.get(key, 0.0) + float(marginal[index])
    return out


def deferred_expectation(circuit: QuantumCircuit, observable: SparsePauliOp | str) -> float:
    """Expectation of an observable on the original qubits of the circuit's final (mixed)
    state, with the circuit's final measurements left out as every backend does."""
    unitary, _ = deferred_circuit(strip_final_measurements(circuit))
    pauli = SparsePauliOp(observable) if isinstance(observable, str) else observable
    state = Statevector(unitary)
    return float(np.real(state.expectation_value(pauli, list(range(circuit.num_qubits)))))
