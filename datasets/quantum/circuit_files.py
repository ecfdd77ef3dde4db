"""Circuit files: OpenQASM 3 or 2 (.qasm, .qasm3) and QPY (.qpy)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qiskit import QuantumCircuit

QASM_SUFFIXES = (".qasm", ".qasm3")


class CircuitFileError(ValueError):
    """A circuit file that cannot be read; the message names the file."""


def example_path(name: str = "grover3.qasm") -> Path:
    """A circuit file shipped with the package (the default job's input)."""
    return Path(str(files("substrates.datasets.quantum") / "examples" / name))


def load_circuits(path: str | os.PathLike[str]) -> list[QuantumCircuit]:
    """Every circuit in a QASM or QPY file; each is named after the file if unnamed."""
    path = Path(path)
    if not path.is_file():
        raise CircuitFileError(f"{path}: no such circuit file")
    suffix = path.suffix.lower()
    try:
        if suffix in QASM_SUFFIXES:
            circuits = [_load_qasm(path.read_text())]
        elif suffix == ".qpy":
            from qiskit import qpy

            with path.open("rb") as handle:
                circuits = list(qpy.load(handle))
        else:
            raise CircuitFileError(
                f"{path}: unknown circuit file type {suffix!r}; use .qasm, .qasm3 or .qpy"
            )
    except CircuitFileError:
        raise
    except Exception as err:  # the parsers raise many types; the user needs the file and why
        raise CircuitFileError(f"{path}: cannot parse: {err}".splitlines()[0]) from err
    for index, circuit in enumerate(circuits):
        if circuit.name.startswith("circuit-") or not circuit.name:
            circuit.name = path.stem if len(circuits) == 1 else f"{path.stem}[{index}]"
    return circuits


def _load_qasm(text: str) -> QuantumCircuit:
    from qiskit import qasm2, qasm3

    header = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if header.startswith("OPENQASM 2"):
        return qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)
    return qasm3.loads(text)


def save_qpy(path: str | os.PathLike[str], circuits: Sequence[QuantumCircuit]) -> None:
    """Write circuits to a QPY file atomically."""
    from qiskit import qpy

    path = Path(path)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".part", delete=False) as f:
        qpy.dump(list(circuits), f)
    os.replace(f.name, path)
