"""Synthetic circuits with known answers: Bell, GHZ, Grover, random layered circuits."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from qiskit import QuantumCircuit


def bell() -> QuantumCircuit:
    """(|00> + |11>)/√2, measured."""
    return ghz(2, name="bell")


def ghz(num_qubits: int, name: str | None = None) -> QuantumCircuit:
    """(|0…0> + |1…1>)/√2 on `num_qubits` qubits, measured."""
    from qiskit import QuantumCircuit

    circuit = QuantumCircuit(num_qubits, name=name or f"ghz{num_qubits}")
    circuit.h(0)
    for qubit in range(num_qubits - 1):
        circuit.cx(qubit, qubit + 1)
    circuit.measure_all()
    return circuit


def grover_iterations(num_qubits: int, num_marked: int = 1) -> int:
    """Optimal iteration count ⌊π/(4θ)⌋ with θ = arcsin√(M/N)."""
    theta = math.asin(math.sqrt(num_marked / 2**num_qubits))
    return math.floor(math.pi / (4 * theta))


def grover_success_probability(num_qubits: int, iterations: int, num_marked: int = 1) -> float:
    """Exact probability of measuring a marked item: sin²((2k+1)θ)."""
    theta = math.asin(math.sqrt(num_marked / 2**num_qubits))
    return math.sin((2 * iterations + 1) * theta) ** 2


def _flip_phase_of(circuit: QuantumCircuit, bitstring: str) -> None:
    """Multiply |bitstring> by -1 (bitstring in Qiskit order: qubit 0 rightmost)."""
    n = circuit.num_qubits
    zeros = [q for q in range(n) if bitstring[n - 1 - q] == "0"]
    if zeros:
        circuit.x(zeros)
    circuit.h(n - 1)
    circuit.mcx(list(range(n - 1)), n - 1)
    circuit.h(n - 1)
    if zeros:
        circuit.x(zeros)


def grover(marked: str, iterations: int | None = None) -> QuantumCircuit:
    """Grover search for one marked bitstring (len ≥ 2), with explicit H/X/MCX gates, measured."""
    from qiskit import QuantumCircuit

    n = len(marked)
    if n < 2 or set(marked) - {"0", "1"}:
        raise ValueError(f"marked must be a bitstring of length >= 2, got {marked!r}")
    k = grover_iterations(n) if iterations is None else iterations
    circuit = QuantumCircuit(n, name=f"grover{n}_{marked}")
    circuit.h(range(n))
    for _ in range(k):
        _flip_phase_of(circuit, marked)
        circuit.h(range(n))
        _flip_phase_of(circuit, "0" * n)
        circuit.h(range(n))
    circuit.measure_all()
    return circuit


def layered(num_qubits: int, layers: int = 10, seed: int = 0) -> QuantumCircuit:
    """`layers` × (RY on every qubit with random angles + a CX chain), measured."""
    from qiskit import QuantumCircuit

    angles = np.random.default_rng(seed).uniform(0, 2 * np.pi, size=(layers, num_qubits))
    circuit = QuantumCircuit(num_qubits, name=f"layered{num_qubits}x{layers}")
    for row in angles:
        for qubit, angle in enumerate(row):
            circuit.ry(float(angle), qubit)
        for qubit in range(num_qubits - 1):
            circuit.cx(qubit, qubit + 1)
    circuit.measure_all()
    return circuit
