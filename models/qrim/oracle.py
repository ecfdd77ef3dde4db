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

import math
from typing import TYPE_CHECKING, Literal

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
    from qiskit.circuit.library import DiagonalGate, IntegerComparatorGate, MCXGate

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

    def lookup() -> None:  # |u>|0> -> |u>|rank(u)>, one multi-controlled X per set bit
        for u, rank in enumerate(ranks):
            for bit in range(bits):
                if (rank >> bit) & 1:
                    circuit.append(MCXGate(n, ctrl_state=u), [*index, value[bit]])

    comparator = IntegerComparatorGate(bits, int(ranks[threshold_index]), geq=False)
    lookup()
    circuit.append(comparator, [*value, flag])
    circuit.z(flag)
    circuit.append(comparator.inverse(), [*value, flag])
    lookup()
    return circuit


def grover_circuit(
    values: np.ndarray, threshold_index: int, iterations: int, construction: Construction
) -> QuantumCircuit:
    """Uniform superposition over U, `iterations` × (oracle, diffusion), index measured."""
    from qiskit import ClassicalRegister, QuantumCircuit

    n = int(math.log2(len(values)))
    oracle = oracle_circuit(values, threshold_index, construction) if iterations else None
    width = oracle.num_qubits if oracle is not None else n
    circuit = QuantumCircuit(width, name=f"grover_j{iterations}")
    index = list(range(n))
    circuit.h(index)
    for _ in range(iterations):
        circuit.compose(oracle, range(width), inplace=True)
        _diffusion(circuit, index)
    circuit.add_register(ClassicalRegister(n, "index"))
    circuit.measure(index, range(n))
    return circuit


def _diffusion(circuit: QuantumCircuit, index: list[int]) -> None:
    """2|s><s| − 1 up to a global phase: H X (multi-controlled Z) X H."""
    circuit.h(index)
    circuit.x(index)
    if len(index) == 1:
        circuit.z(index[0])
    else:
        circuit.h(index[-1])
        circuit.mcx(index[:-1], index[-1])
        circuit.h(index[-1])
    circuit.x(index)
    circuit.h(index)
