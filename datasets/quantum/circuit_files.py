"""Circuit files: OpenQASM 3 or 2 (.qasm, .qasm3) and QPY (.qpy)."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import InputFileError
from ..formats import Format, Formats

if TYPE_CHECKING:
    from qiskit import QuantumCircuit

QASM_SUFFIXES = (".qasm", ".qasm3")
MAX_QUBITS = 100_000
"""Qubits (and bits) a circuit file may declare by default: far above any device, far below
what would exhaust memory while parsing (a register of 2·10⁹ qubits takes gigabytes)."""
MAX_FILE_BYTES = 256 << 20
"""Largest circuit file read by default (bytes)."""
_REGISTER = re.compile(
    r"^\s*(?:(qubit|bit)\s*\[\s*(\d+)\s*\]|(qreg|creg)\s+\w+\s*\[\s*(\d+)\s*\]|(qubit|bit)\s+\w)",
    re.MULTILINE,
)


class CircuitFileError(InputFileError):
    """A circuit file that cannot be read; the message names the file."""


def example_path(name: str = "grover3.qasm") -> Path:
    """A circuit file shipped with the package (the default job's input)."""
    return Path(str(files("substrates.datasets.quantum") / "examples" / name))


def load_circuits(
    path: str | os.PathLike[str], max_qubits: int = MAX_QUBITS, max_bytes: int = MAX_FILE_BYTES
) -> list[QuantumCircuit]:
    """Every circuit in a QASM or QPY file; each is named after the file if unnamed.

    Before parsing, the file's size and the registers a QASM file declares are checked
    against max_bytes and max_qubits (qubits and bits each): a tiny file declaring
    `qubit[2000000000] q;` is refused, not parsed.
    """
    path = Path(path)
    if not path.is_file():
        raise CircuitFileError("no such circuit file", path=path)
    size = path.stat().st_size
    if size > max_bytes:
        raise CircuitFileError(f"{size:,} bytes, more than the {max_bytes:,} read", path=path)
    try:
        circuits = FORMATS.read(path, max_qubits=max_qubits)
    except InputFileError:  # a CircuitFileError, or an ending FORMATS does not know
        raise
    except UnicodeDecodeError:
        raise CircuitFileError("not a text file (QASM is UTF-8 text)", path=path) from None
    except Exception as err:  # the parsers raise many types; the user needs the file and why
        raise CircuitFileError(f"cannot parse: {err}".splitlines()[0], path=path) from err
    except BaseException as err:  # qiskit's Rust parsers panic with a BaseException
        if type(err).__name__ != "PanicException":
            raise
        why = str(err).splitlines()[0] if str(err) else "panic"
        raise CircuitFileError(f"cannot parse: the parser gave up ({why})", path=path) from None
    if not circuits:
        raise CircuitFileError("no circuit in the file", path=path)
    for index, circuit in enumerate(circuits):
        if circuit.name.startswith("circuit-") or not circuit.name:
            circuit.name = path.stem if len(circuits) == 1 else f"{path.stem}[{index}]"
    return circuits


def _check_declarations(path: Path, text: str, max_qubits: int) -> None:
    """Refuse an empty file, and registers wider in sum than max_qubits, before parsing."""
    if not text.strip():
        raise CircuitFileError(f"{path}: the file is empty")
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    totals = {"qubit": 0, "bit": 0}
    for new, width, old, old_width, single in _REGISTER.findall(code):
        kind = new or {"qreg": "qubit", "creg": "bit"}.get(old) or single
        totals[kind] += int(width or old_width or 1)
    for kind, total in totals.items():
        if total > max_qubits:
            raise CircuitFileError(
                f"{path}: declares {total:,} {kind}s, more than the {max_qubits:,} allowed "
                "(load_circuits' max_qubits)"
            )


def _read_qasm(path: Path, max_qubits: int = MAX_QUBITS) -> list[QuantumCircuit]:
    """The circuit of an OpenQASM 2 or 3 file (by its first line), its registers checked."""
    from qiskit import qasm2, qasm3

    text = path.read_text()
    _check_declarations(path, text, max_qubits)
    header = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if header.startswith("OPENQASM 2"):
        return [qasm2.loads(text, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)]
    return [qasm3.loads(text)]


def _read_qpy(path: Path, max_qubits: int = MAX_QUBITS) -> list[QuantumCircuit]:
    """Every circuit of a QPY file (QPY declares no sizes before its circuits)."""
    from qiskit import qpy

    with path.open("rb") as handle:
        return list(qpy.load(handle))


def save_qpy(path: str | os.PathLike[str], circuits: Sequence[QuantumCircuit]) -> None:
    """Write circuits to a QPY file atomically."""
    _write_qpy(list(circuits), Path(path))


def _write_qpy(circuits: list[QuantumCircuit], path: Path) -> None:
    from qiskit import qpy

    with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".part", delete=False) as f:
        qpy.dump(list(circuits), f)
    os.replace(f.name, path)


FORMATS: Formats[list[QuantumCircuit]] = Formats(
    "circuit file",
    [
        Format("qasm", "OpenQASM 2 or 3", QASM_SUFFIXES, _read_qasm),
        Format("qpy", "QPY", (".qpy",), _read_qpy, _write_qpy),
    ],
    error=CircuitFileError,
)
"""The circuit formats: readers take (path, max_qubits=...) and give the file's circuits;
load_circuits adds the size check before and the naming after."""
