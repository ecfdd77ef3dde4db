"""Exact results of dynamic circuits: mid-circuit measurement, reset and feed-forward.

A circuit is *static* when its only non-unitary instructions are final measurements (nothing
after a measurement touches its qubit) and it has no control flow; its outcome distribution
is |amplitude|² of the state before the measurements. Any other circuit is run here by
branching: the state is evolved segment by segment (each backend supplies its own `Evolve`),
a measurement or reset splits every branch into its two outcomes with their probabilities,
and control flow (if/else, switch, for and while loops, boxes) follows each branch's
classical bits. Branches with the same classical bits and the same state (up to a global
phase) are merged, as after a reset of an unentangled qubit.

The result is exact up to floating point: branches whose probability falls to `CUTOFF` or
below are dropped (and a while loop must have let all but that much probability out).
Memory is bounded by `max_bytes`: a circuit that needs more branches of 2ⁿ amplitudes than
fit is refused with one line, before or during the branching but before any result.

Example:
    >>> from qiskit import QuantumCircuit
    >>> qc = QuantumCircuit(2, 2)
    >>> _ = qc.h(0)
    >>> _ = qc.measure(0, 0)
    >>> with qc.if_test((qc.clbits[0], 1)):
    ...     _ = qc.x(1)
    >>> _ = qc.measure(1, 1)
    >>> branches = run_branches(qc, evolve_with_quantum_info)
    >>> {k: round(v, 12) for k, v in outcome_distribution(branches, 2).items()}
    {'00': 0.5, '11': 0.5}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import CapabilityError

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.circuit import CircuitInstruction, Clbit
    from qiskit.quantum_info import SparsePauliOp

Evolve = Callable[[list[np.ndarray], "QuantumCircuit"], list[np.ndarray]]
"""evolve(states, segment) -> each state (2ⁿ amplitudes, qubit 0 = bit 0) after the unitary
circuit `segment` (n qubits, no classical bits)."""

CUTOFF = 1e-15
"""Branches of probability at or below this are dropped."""

MAX_BYTES = 2 * 1024**3
"""Default bound on the amplitudes all live branches hold together (2 GiB)."""

MAX_BRANCHES = 65_536
"""Most live branches, whatever their size."""

MAX_LOOP_ITERATIONS = 1000
"""A while loop still holding probability above CUTOFF after this many rounds is refused."""

_PASSIVE = frozenset({"barrier", "delay", "global_phase", "id"})
_CONTROL_FLOW = frozenset({"if_else", "while_loop", "for_loop", "switch_case", "box"})
_NON_UNITARY = frozenset({"measure", "reset", "initialize"}) | _CONTROL_FLOW
_REFUSED: dict[str, str] = {
    "break_loop": "'break' inside a loop",
    "continue_loop": "'continue' inside a loop",
    "store": "classical variables ('store')",
}


_NOT_STATIC = (_NON_UNITARY - {"measure"}) | frozenset(_REFUSED)


@dataclass(frozen=True)
class Branch:
    """One outcome history: its probability, the normalised state and the classical bits.

    state: 2ⁿ complex amplitudes, qubit 0 = least significant bit of the index.
    clbits: the classical memory as an integer, bit i = the circuit's classical bit i.
    """

    probability: float
    state: np.ndarray
    clbits: int


def is_static(circuit: QuantumCircuit) -> bool:
    """True when every measurement is final and there is no reset or control flow."""
    counts = circuit.count_ops()  # counted in Rust: the common shapes need no walk
    if not _NOT_STATIC.isdisjoint(counts):
        return False
    if "measure" not in counts or final_measurements(circuit) is not None:
        return True
    measured: set[Any] = set()  # Qubit objects: no index look-ups on this hot path
    for instruction in circuit.data:
        name = instruction.operation.name
        if name in _PASSIVE:
            continue
        if measured and not measured.isdisjoint(instruction.qubits):
            return False
        if name == "measure":
            measured.update(instruction.qubits)
    return True


def final_measurements(circuit: QuantumCircuit) -> list[CircuitInstruction] | None:
    """The circuit's measurements when they are its last instructions, one per qubit, and
    it has no reset or control flow (the shape circuits are usually built in); None when
    it has another shape (which may still be static: see `is_static`)."""
    counts = circuit.count_ops()
    count = counts.get("measure", 0)
    if not count or not _NOT_STATIC.isdisjoint(counts):
        return None
    tail = list(circuit.data[-count:])
    if any(i.operation.name != "measure" for i in tail):
        return None
    if len({i.qubits[0] for i in tail}) < count:
        return None
    return tail


def _state_preparation(initialize: Any) -> Any:
    """The unitary half of an `initialize`, whose definition is a reset of each of its
    qubits and then this StatePreparation (amplitudes, a label or an integer alike)."""
    return next(
        i.operation for i in initialize.definition.data if i.operation.name == "state_preparation"
    )


def exact_form(circuit: QuantumCircuit) -> QuantumCircuit:
    """`circuit` with each top-level `initialize` of qubits nothing has touched yet — still
    |0…0⟩, so its reset does nothing — replaced by its unitary half, a StatePreparation:
    a circuit that only starts with `initialize` stays static and takes a backend's exact
    path. Any other `initialize` (after a gate, a reset or a measurement of its qubits, or
    inside control flow) is a reset and then the preparation, which `run_branches` follows
    exactly. A circuit without `initialize` is returned as it is.
    """
    if "initialize" not in circuit.count_ops():
        return circuit
    out = circuit.copy_empty_like()
    touched: set[Any] = set()
    for instruction in circuit.data:
        op = instruction.operation
        if op.name == "initialize" and touched.isdisjoint(instruction.qubits):
            out.append(_state_preparation(op), instruction.qubits)
        else:
            out.append(instruction)
        if op.name not in _PASSIVE:
            touched.update(instruction.qubits)
    return out


def partition(circuits: Sequence[QuantumCircuit]) -> tuple[list[int], list[int]]:
    """Indices of the static circuits and of the dynamic ones (which need branching)."""
    static: list[int] = []
    dynamic: list[int] = []
    for i, circuit in enumerate(circuits):
        (static if is_static(circuit) else dynamic).append(i)
    return static, dynamic


def strip_final_measurements(circuit: QuantumCircuit) -> QuantumCircuit:
    """The circuit without the measurements nothing depends on, for expectation values.

    A top-level measurement is dropped when no later instruction touches its qubit or reads
    or writes its classical bit; every other instruction is kept in order.
    """
    out = circuit.copy_empty_like()
    keep: list[CircuitInstruction] = []
    later_qubits: set[int] = set()
    later_clbits: set[int] = set()
    for instruction in reversed(circuit.data):
        qubits = {circuit.find_bit(q).index for q in instruction.qubits}
        clbits = {circuit.find_bit(c).index for c in instruction.clbits}
        if instruction.operation.name == "measure" and not (
            qubits & later_qubits or clbits & later_clbits
        ):
            continue
        if instruction.operation.name not in _PASSIVE:
            later_qubits |= qubits
            later_clbits |= clbits | _condition_clbits(circuit, instruction)
        keep.append(instruction)
    for instruction in reversed(keep):
        out.append(instruction)
    return out


def _condition_clbits(circuit: QuantumCircuit, instruction: CircuitInstruction) -> set[int]:
    """Classical bits a control-flow condition reads (they are in `clbits` already, but
    a hand-built instruction may not list them)."""
    condition = getattr(instruction.operation, "condition", None)
    target = getattr(instruction.operation, "target", None)
    bits: set[int] = set()
    for item in (condition[0] if isinstance(condition, tuple) else condition, target):
        if item is None:
            continue
        for bit in _bits_of(item):
            bits.add(circuit.find_bit(bit).index)
    return bits


def _bits_of(item: Any) -> Iterable[Clbit]:
    from qiskit.circuit import ClassicalRegister, Clbit
    from qiskit.circuit.classical import expr

    if isinstance(item, Clbit):
        return [item]
    if isinstance(item, ClassicalRegister):
        return list(item)
    if isinstance(item, expr.Expr):
        found: list[Clbit] = []
        for var in expr.iter_vars(item):
            if isinstance(var.var, Clbit | ClassicalRegister):
                found.extend(_bits_of(var.var))
        return found
    return []


class _Brancher:
    """Walks a circuit's instructions, keeping the live branches and a pending segment."""

    def __init__(self, circuit: QuantumCircuit, evolve: Evolve, max_bytes: int) -> None:
        from qiskit import QuantumCircuit

        self.circuit = circuit
        self.evolve = evolve
        self.num_qubits = circuit.num_qubits
        self.max_bytes = max_bytes
        self.max_branches = min(MAX_BRANCHES, max(1, max_bytes // (16 * 2**self.num_qubits)))
        self.segment = QuantumCircuit(self.num_qubits)
        self._new_segment = lambda: QuantumCircuit(self.num_qubits)

    # -- the walk ------------------------------------------------------------------
    def run(
        self,
        instructions: Sequence[CircuitInstruction],
        qmap: Mapping[Any, int],
        cmap: Mapping[Any, int],
        branches: list[Branch],
    ) -> list[Branch]:
        for instruction in instructions:
            if not branches:
                return branches
            op = instruction.operation
            name = op.name
            if name in _PASSIVE:
                continue
            if name in _REFUSED:
                raise CapabilityError(
                    f"circuit {self.circuit.name!r}: exact results of circuits with "
                    f"{_REFUSED[name]} are not available; sample it instead"
                )
            qubits = [qmap[q] for q in instruction.qubits]
            clbits = [cmap[c] for c in instruction.clbits]
            if name not in _NON_UNITARY:
                if instruction.clbits:
                    raise CapabilityError(
                        f"circuit {self.circuit.name!r}: operation {name!r} writes classical "
                        "bits; exact results are not available, sample it instead"
                    )
                self.segment.append(op, qubits)
                continue
            branches = self.flush(branches)
            if name == "measure":
                branches = self._split(branches, qubits[0], clbit=clbits[0])
            elif name == "reset":
                branches = self._split(branches, qubits[0], clbit=None)
            elif name == "initialize":  # a reset of each qubit, then the preparation
                for qubit in qubits:
                    branches = self._split(branches, qubit, clbit=None)
                self.segment.append(_state_preparation(op), qubits)
            else:
                branches = self._control_flow(instruction, qubits, clbits, cmap, branches)
        return branches

    def flush(self, branches: list[Branch]) -> list[Branch]:
        """Evolve every branch through the pending unitary segment."""
        if not self.segment.data or not branches:
            self.segment = self._new_segment()
            return branches
        states = self.evolve([b.state for b in branches], self.segment)
        self.segment = self._new_segment()
        return [replace(b, state=s) for b, s in zip(branches, states, strict=True)]

    # -- measurement and reset -------------------------------------------------------
    def _split(self, branches: list[Branch], qubit: int, clbit: int | None) -> list[Branch]:
        out: list[Branch] = []
        for branch in branches:
            view = branch.state.reshape(-1, 2, 2**qubit)
            weights = np.einsum("ijk,ijk->j", view, view.conj()).real
            total = weights.sum()
            for outcome in (0, 1):
                p = weights[outcome] / total
                if branch.probability * p <= CUTOFF:
                    continue
                projected = np.zeros_like(view)
                target = outcome if clbit is not None else 0  # a reset lands in |0>
                projected[:, target, :] = view[:, outcome, :] / np.sqrt(p * total)
                bits = branch.clbits
                if clbit is not None:
                    bits = (bits & ~(1 << clbit)) | (outcome << clbit)
                out.append(Branch(float(branch.probability * p), projected.reshape(-1), bits))
        return self._merged(out)

    def _merged(self, branches: list[Branch]) -> list[Branch]:
        """Merge branches with equal classical bits and equal states up to a phase."""
        kept: list[Branch] = []
        by_bits: dict[int, list[int]] = {}
        for branch in branches:
            same = by_bits.setdefault(branch.clbits, [])
            for i in same:
                if _same_ray(kept[i].state, branch.state):
                    kept[i] = replace(kept[i], probability=kept[i].probability + branch.probability)
                    break
            else:
                same.append(len(kept))
                kept.append(branch)
        if len(kept) > self.max_branches:
            raise CapabilityError(
                f"circuit {self.circuit.name!r}: exact results need more than "
                f"{self.max_branches:,} branches of 2^{self.num_qubits} amplitudes (the "
                f"bound is {MAX_BRANCHES:,} branches and {self.max_bytes / 2**30:.1f} GiB); "
                "sample it instead"
            )
        return kept

    # -- control flow ------------------------------------------------------------------
    def _control_flow(
        self,
        instruction: CircuitInstruction,
        qubits: list[int],
        clbits: list[int],
        cmap: Mapping[Any, int],
        branches: list[Branch],
    ) -> list[Branch]:
        op = instruction.operation
        name = op.name

        def inner(block: QuantumCircuit) -> tuple[dict[Any, int], dict[Any, int]]:
            return (
                dict(zip(block.qubits, qubits, strict=True)),
                {**cmap, **dict(zip(block.clbits, clbits, strict=True))},
            )

        def block_run(block: QuantumCircuit, group: list[Branch]) -> list[Branch]:
            qm, cm = inner(block)
            return self.flush(self.run(block.data, qm, cm, group))

        if name == "box":
            return block_run(op.blocks[0], branches)
        if name == "for_loop":
            indexset, parameter, body = op.params
            for value in indexset:
                bound = body if parameter is None else body.assign_parameters({parameter: value})
                branches = block_run(bound, branches)
            return branches
        if name == "if_else":
            true_body, false_body = op.blocks[0], op.blocks[1] if len(op.blocks) > 1 else None
            taken, skipped = self._by_condition(op.condition, branches, cmap)
            out = block_run(true_body, taken) if taken else []
            if false_body is not None and skipped:
                skipped = block_run(false_body, skipped)
            return self._merged(out + skipped)
        if name == "switch_case":
            out, rest = [], list(branches)
            for values, block in op.cases_specifier():
                hits = [self._case(op.target, values, b.clbits, cmap) for b in rest]
                matched = [b for b, hit in zip(rest, hits, strict=True) if hit]
                rest = [b for b, hit in zip(rest, hits, strict=True) if not hit]
                if matched:
                    out += block_run(block, matched)
            return self._merged(out + rest)
        if name == "while_loop":
            done: list[Branch] = []
            for _ in range(MAX_LOOP_ITERATIONS):
                looping, leaving = self._by_condition(op.condition, branches, cmap)
                done += leaving
                if not looping:
                    return self._merged(done)
                branches = block_run(op.blocks[0], looping)
            raise CapabilityError(
                f"circuit {self.circuit.name!r}: a while loop still runs with probability "
                f"{sum(b.probability for b in branches):.2e} after {MAX_LOOP_ITERATIONS} "
                "rounds; sample it instead"
            )
        raise CapabilityError(f"circuit {self.circuit.name!r}: {name!r} has no exact rule")

    def _case(
        self, target: Any, values: tuple[Any, ...], bits: int, cmap: Mapping[Any, int]
    ) -> bool:
        from qiskit.circuit import CASE_DEFAULT

        if CASE_DEFAULT in values:
            return True
        return _value(target, bits, cmap, self.circuit.name) in {int(v) for v in values}

    def _by_condition(
        self, condition: Any, branches: list[Branch], cmap: Mapping[Any, int]
    ) -> tuple[list[Branch], list[Branch]]:
        """The branches whose bits satisfy the condition, and the others."""
        true: list[Branch] = []
        false: list[Branch] = []
        for branch in branches:
            (true if self._truth(condition, branch.clbits, cmap) else false).append(branch)
        return true, false

    def _truth(self, condition: Any, bits: int, cmap: Mapping[Any, int]) -> bool:
        if isinstance(condition, tuple):
            target, value = condition
            return _value(target, bits, cmap, self.circuit.name) == int(value)
        return bool(_value(condition, bits, cmap, self.circuit.name))


def _same_ray(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(abs(abs(np.vdot(a, b)) - 1.0) < 1e-12)


def _value(item: Any, bits: int, cmap: Mapping[Any, int], name: str) -> int:
    """The integer a classical condition target or expression has on these bits."""
    from qiskit.circuit import ClassicalRegister, Clbit
    from qiskit.circuit.classical import expr

    if isinstance(item, Clbit):
        return (bits >> cmap[item]) & 1
    if isinstance(item, ClassicalRegister):
        return sum(((bits >> cmap[bit]) & 1) << i for i, bit in enumerate(item))
    if isinstance(item, expr.Var):
        if isinstance(item.var, Clbit | ClassicalRegister):
            return _value(item.var, bits, cmap, name)
        raise CapabilityError(
            f"circuit {name!r}: exact results of circuits with classical variables "
            f"({item.name!r}) are not available; sample it instead"
        )
    if isinstance(item, expr.Value):
        return int(item.value)
    if isinstance(item, expr.Cast):
        inner = _value(item.operand, bits, cmap, name)
        return int(bool(inner)) if item.type.kind is expr.types.Bool else inner
    if isinstance(item, expr.Index):
        return (_value(item.target, bits, cmap, name) >> _value(item.index, bits, cmap, name)) & 1
    if isinstance(item, expr.Unary):
        inner = _value(item.operand, bits, cmap, name)
        if item.op is expr.Unary.Op.LOGIC_NOT:
            return int(not inner)
        if item.op is expr.Unary.Op.BIT_NOT:
            width = getattr(item.type, "width", 1) or 1
            return ~inner & ((1 << width) - 1)
    if isinstance(item, expr.Binary):
        left = _value(item.left, bits, cmap, name)
        right = _value(item.right, bits, cmap, name)
        rule = _BINARY.get(item.op.name)
        if rule is not None:
            return int(rule(left, right))
    raise CapabilityError(
        f"circuit {name!r}: the classical expression {item!r} has no exact rule; sample it instead"
    )


_BINARY: dict[str, Callable[[int, int], int | bool]] = {
    "BIT_AND": lambda a, b: a & b,
    "BIT_OR": lambda a, b: a | b,
    "BIT_XOR": lambda a, b: a ^ b,
    "LOGIC_AND": lambda a, b: bool(a) and bool(b),
    "LOGIC_OR": lambda a, b: bool(a) or bool(b),
    "EQUAL": lambda a, b: a == b,
    "NOT_EQUAL": lambda a, b: a != b,
    "LESS": lambda a, b: a < b,
    "LESS_EQUAL": lambda a, b: a <= b,
    "GREATER": lambda a, b: a > b,
    "GREATER_EQUAL": lambda a, b: a >= b,
    "SHIFT_LEFT": lambda a, b: a << b,
    "SHIFT_RIGHT": lambda a, b: a >> b,
}


def run_branches(
    circuit: QuantumCircuit, evolve: Evolve, *, max_bytes: int = MAX_BYTES
) -> list[Branch]:
    """Every outcome history of `circuit` from |0…0⟩, with the state after its last instruction.

    Raises CapabilityError (one line) for what has no exact rule or does not fit `max_bytes`.
    """
    if circuit.parameters:
        raise CapabilityError(f"circuit {circuit.name!r} has unbound parameters")
    walker = _Brancher(circuit, evolve, max_bytes)
    if 16 * 2**circuit.num_qubits > max_bytes:
        raise CapabilityError(
            f"circuit {circuit.name!r}: one state of {circuit.num_qubits} qubits does not fit "
            f"in {max_bytes / 2**30:.1f} GiB"
        )
    start = np.zeros(2**circuit.num_qubits, dtype=complex)
    start[0] = 1.0
    qmap = {q: i for i, q in enumerate(circuit.qubits)}
    cmap = {c: i for i, c in enumerate(circuit.clbits)}
    branches = walker.run(circuit.data, qmap, cmap, [Branch(1.0, start, 0)])
    return walker.flush(branches)


def outcome_distribution(branches: Iterable[Branch], num_clbits: int) -> dict[str, float]:
    """Probability of each classical memory value (Qiskit bitstrings: clbit 0 rightmost)."""
    totals: dict[int, float] = {}
    for branch in branches:
        totals[branch.clbits] = totals.get(branch.clbits, 0.0) + branch.probability
    width = f"0{num_clbits}b"
    return {format(k, width): float(v) for k, v in sorted(totals.items()) if v > CUTOFF}


def expectation(branches: Iterable[Branch], observable: SparsePauliOp) -> float:
    """Σ over branches of probability × ⟨ψ|O|ψ⟩: the mixed state's expectation value."""
    from qiskit.quantum_info import Statevector

    return float(
        sum(
            b.probability * np.real(Statevector(b.state).expectation_value(observable))
            for b in branches
        )
    )


def evolve_with_quantum_info(states: list[np.ndarray], segment: QuantumCircuit) -> list[np.ndarray]:
    """An `Evolve` by qiskit.quantum_info.Statevector (dense, gate by gate)."""
    from qiskit.quantum_info import Statevector

    return [np.asarray(Statevector(s).evolve(segment).data) for s in states]
