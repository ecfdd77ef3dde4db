"""Quantum backends: Qiskit circuits on Aer, PennyLane devices and IBM Quantum."""
