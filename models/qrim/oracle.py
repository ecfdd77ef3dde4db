"""Threshold oracles O|u> = (−1)^[V(u) < V(y)] |u> on an index register of n qubits, and the
Grover circuits built from them.

Two constructions of the same oracle:
  gates     a lookup (QROM) writes the rank of V(u) into a value register, a comparator
            flips a flag when that rank is below the threshold's, Z on the flag gives the
            phase, and both are uncomputed. Real gates only: this is what runs on hardware.
  diagonal  one diagonal unitary with those ±1 entries on the index register: the same
            operator without ancillas, so simulators reach |U| = 1024 quickly.
Ranks (dense, over the distinct values) make the comparison exact: no rounding of values.
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.circuit import CircuitInstruction

Construction = Literal["gates", "diagonal"]


def dense_ranks(values: np.ndarray) -> np.ndarray:
    """Rank of each value among the distinct values (0 for the smallest)."""
    return np.unique(values, return_inverse=True)[1].astype(np.int64)


def marked(values: np.ndarray, threshold: float) -> np.ndarray:
    """Boolean mask of the members the oracle marks: V(u) < threshold."""
    return values < threshold


def oracle_circuit(
    values: np.ndarray, threshold_index: int, construction: Construction
) -> QuantumCircuit:
    """The oracle for 'V(u) < V(threshold_index)'; index qubits first, ancillas after."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate, MCXGate

    n = int(math.log2(len(values)))
    if construction == "diagonal":
        circuit = QuantumCircuit(n, name="oracle")
        signs = np.where(marked(values, values[threshold_index]), -1.0, 1.0).astype(complex)
        circuit.append(DiagonalGate(signs.tolist()), range(n), copy=False)  # complex: fastest
        return circuit
    ranks = dense_ranks(values)
    bits = max(1, int(ranks.max()).bit_length())
    index, value, flag = list(range(n)), list(range(n, n + bits)), n + bits
    circuit = QuantumCircuit(n + bits + 1, name="oracle")

    def lookup() -> None:
        """|u>|0> -> |u>|rank(u)>: for each u, X on its 0 bits, then a multi-controlled X
        per set bit of its rank. Members in Gray-code order, so one X separates them."""
        applied = 0  # the index bits X is currently applied to
        for g in range(len(ranks)):
            u = g ^ (g >> 1)
            wanted = ~u & (len(ranks) - 1)
            for q in range(n):
                if (applied ^ wanted) >> q & 1:
                    circuit.x(index[q])
            applied = wanted
            for bit in range(bits):
                if (int(ranks[u]) >> bit) & 1:
                    circuit.append(gate, [*index, value[bit]], copy=False)
        for q in range(n):
            if applied >> q & 1:
                circuit.x(index[q])

    gate = MCXGate(n)
    comparator, undo = _comparator(bits, int(ranks[threshold_index]))
    lookup()
    circuit.compose(comparator, [*value, flag], inplace=True, copy=False)
    circuit.z(flag)
    circuit.compose(undo, [*value, flag], inplace=True, copy=False)
    lookup()
    return circuit


@functools.cache
def _comparator(bits: int, threshold: int) -> tuple[QuantumCircuit, QuantumCircuit]:
    """Qiskit's IntegerComparatorGate (flag ^= value < threshold) and its inverse, each
    expanded once into X and multi-controlled X gates that simulators run as they are."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import IntegerComparatorGate

    gate = IntegerComparatorGate(bits, threshold, geq=False)
    out = []
    for operation in (gate, gate.inverse()):
        circuit = QuantumCircuit(gate.num_qubits)
        circuit.append(operation, range(gate.num_qubits))
        for _ in range(4):
            other = set(circuit.count_ops()) - {"x", "mcx", "cx", "ccx"}
            if not other:
                break
            circuit = circuit.decompose(gates_to_decompose=sorted(other))
        out.append(circuit)
    return out[0], out[1]


def oracle_key(values: np.ndarray, threshold_index: int, construction: Construction) -> tuple:
    """What decides the oracle: equal keys, the same operator. The marked set (diagonal), or
    the ranks and the threshold's rank (gates: the lookup writes every rank)."""
    if construction == "diagonal":
        mask = marked(values, values[threshold_index])
        return (len(values), np.packbits(mask).tobytes())
    ranks = dense_ranks(values)
    return (len(values), ranks.tobytes(), int(ranks[threshold_index]))


def grover_circuit(
    values: np.ndarray,
    threshold_index: int,
    iterations: int,
    construction: Construction,
    *,
    key: tuple | None = None,
) -> QuantumCircuit:
    """Uniform superposition over U, `iterations` × (oracle, diffusion), index measured.

    key: `oracle_key(values, threshold_index, construction)` where the caller has it.
    """
    from qiskit import ClassicalRegister, QuantumCircuit

    n = int(math.log2(len(values)))
    if iterations == 0:
        circuit = QuantumCircuit(n, name="grover_j0")
    else:
        if key is None:
            key = oracle_key(values, threshold_index, construction)
        step = _grover_step(values, threshold_index, construction, key)
        circuit = step.circuit.copy_empty_like(name=f"grover_j{iterations}")  # the same bits
    index = list(range(n))
    circuit.h(index)
    for _ in range(iterations):
        for instruction in step.instructions:  # the same immutable gates, not copies
            circuit._append(instruction)  # unchecked: they come from a valid circuit
    circuit.add_register(ClassicalRegister(n, "index"))
    circuit.measure(index, range(n))
    return circuit


@dataclass(frozen=True)
class _Step:
    """One Grover iteration: its circuit and that circuit's instructions, read once."""

    circuit: QuantumCircuit
    instructions: tuple[CircuitInstruction, ...]


STEPS_KEPT = 1024
"""Grover iterations (oracle, diffusion) kept for reuse, least recent dropped: a search asks
for several counts at one threshold, and a sweep for the same tables again."""
_steps: OrderedDict[tuple, _Step] = OrderedDict()


def _grover_step(
    values: np.ndarray, threshold_index: int, construction: Construction, key: tuple
) -> _Step:
    """One Grover iteration, oracle then diffusion, built once per distinct oracle (`key`,
    from `oracle_key`). Callers append its instructions and never change them."""
    step = _steps.get((construction, key))
    if step is not None:
        _steps.move_to_end((construction, key))
        return step
    n = int(math.log2(len(values)))
    oracle = oracle_circuit(values, threshold_index, construction)
    circuit = oracle.compose(_diffusion(n, construction), list(range(n)), copy=False)
    step = _steps[(construction, key)] = _Step(circuit, tuple(circuit.data))
    if len(_steps) > STEPS_KEPT:
        _steps.popitem(last=False)
    return step


@functools.cache
def _diffusion(n: int, construction: Construction) -> QuantumCircuit:
    """2|s><s| − 1 up to a global phase on n qubits: H, the reflection about |0…0>, H.
    The reflection is X (multi-controlled Z) X with 'gates'; with 'diagonal' it is one
    diagonal gate, −1 on |0…0> (the same operator in half the instructions, which is what
    a simulator's cost per circuit follows). Built once per width and construction;
    callers compose it without copying and never change it."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate

    circuit = QuantumCircuit(n, name="diffusion")
    index = list(range(n))
    circuit.h(index)
    if construction == "diagonal":
        circuit.append(DiagonalGate([-1.0] + [1.0] * (2**n - 1)), index)
    elif n == 1:
        circuit.x(0)
        circuit.z(0)
        circuit.x(0)
    else:
        circuit.x(index)
        circuit.h(n - 1)
        circuit.mcx(index[:-1], n - 1)
        circuit.h(n - 1)
        circuit.x(index)
    circuit.h(index)
    return circuit
