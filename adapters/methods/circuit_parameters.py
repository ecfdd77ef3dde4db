"""Parameters every method on a circuit file shares (`sample`, `estimate`)."""

from __future__ import annotations

from pydantic import field_validator

from ...datasets.quantum.circuit_files import DEFAULT_BUDGET, MAX_QUBITS, circuit_path
from ...datasets.quantum.qasm_budget import QasmBudget
from .method import SEED_MAX, MethodParameters, option


class CircuitFileParameters(MethodParameters):
    """The backend, the circuit file and the seed of a method run on circuits."""

    hardware: str = option(
        "aer_statevector",
        "hardware config file or shipped config name",
        metavar="CONFIG",
        input="config",
    )
    circuit: str | None = option(
        None,
        "circuit file: QASM 3, QASM 2 or QPY, or a shipped example by name (default: the "
        "shipped grover3.qasm)",
        metavar="FILE",
        input="file",
    )
    seed: int | None = option(None, "simulator and transpiler seed", ge=0, le=SEED_MAX)
    max_file_qubits: int = option(
        MAX_QUBITS,
        "refuse a circuit file declaring more qubits (or bits) than this, before parsing it",
        ge=1,
    )
    max_operations: int = option(
        DEFAULT_BUDGET.max_operations,
        "refuse a QASM file whose circuit unrolls to more operations than this (every gate "
        "definition, loop and register broadcast expanded), before parsing it",
        ge=1,
    )
    max_clbits: int = option(
        DEFAULT_BUDGET.max_clbits,
        "refuse a QASM file declaring more classical bits than this (each shot's result "
        "holds every one), before parsing it",
        ge=1,
    )

    @field_validator("circuit", mode="before")
    @classmethod
    def _shipped(cls, value: object) -> object:
        """A shipped example named without its folder ('grover3') becomes its path."""
        return str(circuit_path(value)) if isinstance(value, str) else value

    def budget(self) -> QasmBudget:
        """The QASM budget these options set (the rest as QasmBudget's defaults)."""
        return QasmBudget(max_operations=self.max_operations, max_clbits=self.max_clbits)
