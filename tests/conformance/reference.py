"""Independent references: qiskit.quantum_info state vectors and closed-form distributions."""

from __future__ import annotations

import math

import numpy as np
from qiskit import QuantumCircuit
from qiskit.quantum_info import SparsePauliOp, Statevector


def exact_distribution(circuit: QuantumCircuit) -> dict[str, float]:
    """Outcome probabilities from qiskit.quantum_info (no simulator involved)."""
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    return {k: float(v) for k, v in state.probabilities_dict().items() if v > 1e-14}


def exact_expectation(circuit: QuantumCircuit, observable: str) -> float:
    state = Statevector(circuit.remove_final_measurements(inplace=False))
    return float(np.real(state.expectation_value(SparsePauliOp(observable))))


def binomial_tolerance(p: float, shots: int, sigmas: float = 5.0) -> float:
    """Allowed |frequency - p| for `shots` Bernoulli draws: `sigmas` standard errors + 1 count."""
    return sigmas * math.sqrt(p * (1 - p) / shots) + 1 / shots
