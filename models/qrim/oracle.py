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
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from qiskit import QuantumCircuit

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
        signs = np.where(marked(values, values[threshold_index]), -1.0, 1.0)
        circuit.append(DiagonalGate(list(signs)), range(n))
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


def grover_circuit(
    values: np.ndarray, threshold_index: int, iterations: int, construction: Construction
) -> QuantumCircuit:
    """Uniform superposition over U, `iterations` × (oracle, diffusion), index measured."""
    from qiskit import ClassicalRegister, QuantumCircuit

    n = int(math.log2(len(values)))
    step = _grover_step(values, threshold_index, construction) if iterations else None
    width = step.num_qubits if step is not None else n
    circuit = QuantumCircuit(width, name=f"grover_j{iterations}")
    index = list(range(n))
    circuit.h(index)
    if step is not None:
        for _ in range(iterations):  # the same immutable gates, not copies of them
            circuit.compose(step, range(width), inplace=True, copy=False)
    circuit.add_register(ClassicalRegister(n, "index"))
    circuit.measure(index, range(n))
    return circuit


STEPS_KEPT = 1024
"""Grover iterations (oracle, diffusion) kept for reuse, least recent dropped: a search asks
for several counts at one threshold, and a sweep for the same tables again."""
_steps: OrderedDict[tuple, QuantumCircuit] = OrderedDict()


def _grover_step(values: np.ndarray, threshold_index: int, construction: Construction) -> Any:
    """One Grover iteration, oracle then diffusion, built once per distinct oracle: the
    marked set (diagonal) or the ranks and the threshold's rank (gates). Callers compose it
    without copying and never change it."""
    if construction == "diagonal":
        key: tuple = (construction, len(values), marked(values, values[threshold_index]).tobytes())
    else:
        ranks = dense_ranks(values)
        key = (construction, ranks.tobytes(), int(ranks[threshold_index]))
    step = _steps.get(key)
    if step is None:
        n = int(math.log2(len(values)))
        oracle = oracle_circuit(values, threshold_index, construction)
        step = _steps[key] = oracle.compose(_diffusion(n), list(range(n)), copy=False)
        if len(_steps) > STEPS_KEPT:
            _steps.popitem(last=False)
    else:
        _steps.move_to_end(key)
    return step


@functools.cache
def _diffusion(n: int) -> QuantumCircuit:
    """2|s><s| − 1 up to a global phase on n qubits: H X (multi-controlled Z) X H. Built
    once per width; callers compose it without copying and never change it."""
    from qiskit import QuantumCircuit

    circuit = QuantumCircuit(n, name="diffusion")
    index = list(range(n))
    circuit.h(index)
    circuit.x(index)
    if n == 1:
        circuit.z(0)
    else:
        circuit.h(n - 1)
        circuit.mcx(index[:-1], n - 1)
        circuit.h(n - 1)
    circuit.x(index)
    circuit.h(index)
    return circuit
