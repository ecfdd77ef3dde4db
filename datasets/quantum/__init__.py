"""Quantum data: circuit files, counts tables, circuit generators."""
