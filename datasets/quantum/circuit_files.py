"""Circuit files: OpenQASM 3 or 2 (.qasm, .qasm3) and QPY (.qpy)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from importlib.resources import files
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from ...errors import InputFileError
from ..formats import Format, Formats
from .qasm_budget import CircuitFileError, QasmBudget, scan, strip_comments

if TYPE_CHECKING:
    from qiskit import QuantumCircuit

QASM_SUFFIXES = (".qasm", ".qasm3")
MAX_QUBITS = 100_000
"""Qubits (and bits) a circuit file may declare by default: far above any device, far below
what would exhaust memory while parsing (a register of 2·10⁹ qubits takes gigabytes)."""
MAX_FILE_BYTES = 256 << 20
"""Largest circuit file read by default (bytes)."""
DEFAULT_BUDGET = QasmBudget()
"""What a QASM file may ask for by default (see `qasm_budget.QasmBudget`)."""
_REGISTER = re.compile(
    r"^\s*(?:(qubit|bit)\s*\[\s*(\d+)\s*\]|(qreg|creg)\s+\w+\s*\[\s*(\d+)\s*\]|(qubit|bit)\s+\w)",
    re.MULTILINE,
)


def example_path(name: str = "grover3.qasm") -> Path:
    """A circuit file shipped with the package (the default job's input)."""
    return Path(str(files("substrates.datasets.quantum") / "examples" / name))


def circuit_path(name_or_path: str | os.PathLike[str]) -> Path:
    """A circuit file as given, or, where no such file exists and the name has no folder,
    the shipped example of that name, with or without its ending ('grover3').

    >>> circuit_path("grover3").name
    'grover3.qasm'
    """
    path = Path(name_or_path)
    if path.exists() or path.parent != Path():
        return path
    for candidate in (example_path(path.name), example_path(f"{path.name}.qasm")):
        if candidate.is_file():
            return candidate
    return path


def load_circuits(
    path: str | os.PathLike[str],
    max_qubits: int = MAX_QUBITS,
    max_bytes: int = MAX_FILE_BYTES,
    budget: QasmBudget | None = None,
) -> list[QuantumCircuit]:
    """Every circuit in a QASM or QPY file; each is named after the file if unnamed.

    Before parsing, the file's size and the registers a QASM file declares are checked
    against max_bytes and max_qubits (qubits and bits each): a tiny file declaring
    `qubit[2000000000] q;` is refused, not parsed. A QASM file's text is then scanned
    against `budget` (operations once unrolled, loop iterations, definition depth,
    classical bits: see `qasm_budget`), and parsed within `budget.max_parse_s`; a refusal
    names the line and the budget.

    Examples:
        >>> [circuit.name for circuit in load_circuits(example_path())]
        ['grover3']
    """
    path = circuit_path(path)
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in example_path().parent.glob("*.qasm")))
        raise CircuitFileError(f"no such circuit file, nor a shipped one ({shipped})", path=path)
    size = path.stat().st_size
    if size > max_bytes:
        raise CircuitFileError(f"{size:,} bytes, more than the {max_bytes:,} read", path=path)
    try:
        circuits = FORMATS.read(path, max_qubits=max_qubits, budget=budget or DEFAULT_BUDGET)
    except InputFileError:  # a CircuitFileError, or an ending FORMATS does not know
        raise
    except UnicodeDecodeError:
        raise CircuitFileError("not a text file (QASM is UTF-8 text)", path=path) from None
    except Exception as err:  # the parsers raise many types; the user needs the file and why
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise CircuitFileError(f"cannot parse: {reason}", path=path) from err
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


def _read_qasm(
    path: Path, max_qubits: int = MAX_QUBITS, budget: QasmBudget = DEFAULT_BUDGET
) -> list[QuantumCircuit]:
    """The circuit of an OpenQASM 2 or 3 file (by its first line): its registers and
    budget checked on the text, then parsed (without its comments: Qiskit's QASM 3 lexer
    takes minutes over a long comment) within budget.max_parse_s."""
    from qiskit import qasm2, qasm3

    text = path.read_text()
    _check_declarations(path, text, max_qubits)
    scan(text, str(path), budget)
    code = strip_comments(text)
    header = next((line.strip() for line in code.splitlines() if line.strip()), "")
    with _parse_deadline(path, budget.max_parse_s), _parser_stderr(path):
        if header.startswith("OPENQASM 2"):
            return [qasm2.loads(code, custom_instructions=qasm2.LEGACY_CUSTOM_INSTRUCTIONS)]
        return [qasm3.loads(code)]


class _ParseTimeout(BaseException):
    """The parse outlived its budget (raised in the main thread by SIGALRM; a
    BaseException, so that no parser's `except Exception` takes it for a parse error)."""


@contextlib.contextmanager
def _parse_deadline(path: Path, seconds: float) -> Iterator[None]:
    """Inside, running past `seconds` raises CircuitFileError (on the main thread, by an
    interval timer; elsewhere the parse runs unbounded, as signals reach only that thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    refusal = CircuitFileError(
        f"parsing took over {seconds:g} s (the budget's max_parse_s)", path=path
    )

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _ParseTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _ParseTimeout:
        raise refusal from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # The handler's exception is lost when the signal lands in a destructor or a weakref
    # callback (Python prints "Exception ignored" and goes on), so the clock decides too.
    if time.monotonic() - started > seconds:
        raise refusal


@contextlib.contextmanager
def _parser_stderr(path: Path) -> Iterator[None]:
    """What the parser prints on stderr (the QASM 3 importer's ANTLR prints `line 5:4
    missing ']'`) becomes the reason of our one line, not a line of its own."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed):
            yield
    except CircuitFileError:
        raise
    except Exception as err:
        said = printed.getvalue().strip().splitlines()
        reason = (str(err).strip().splitlines() or [""])[0]
        if said:
            reason = f"{said[0]}" + (f" ({reason})" if reason else "")
        raise CircuitFileError(f"cannot parse: {reason or type(err).__name__}", path=path) from err


def _read_qpy(
    path: Path, max_qubits: int = MAX_QUBITS, budget: QasmBudget = DEFAULT_BUDGET
) -> list[QuantumCircuit]:
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
"""The circuit formats: readers take (path, max_qubits=..., budget=...) and give the
file's circuits; load_circuits adds the size check before and the naming after."""
