"""How the command fails: one line on stderr and exit 2 for anything the input or the
machine caused; for a bug, one line saying where the whole traceback was written."""

from __future__ import annotations

import datetime
import os
import sys
import tempfile
import traceback
from pathlib import Path

BUG = 70
"""Exit code of an unexpected error (a bug; sysexits' EX_SOFTWARE)."""


def explain(error: BaseException) -> str | None:
    """One line for an error that the input or the machine caused, None for a bug."""
    from ..errors import SubstratesError

    if isinstance(error, SubstratesError):
        return str(error)
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror or error}"
    if isinstance(error, UnicodeError):
        return f"not UTF-8 text: {error}"
    if isinstance(error, MemoryError):
        return "out of memory: the input asks for more than this machine has"
    if isinstance(error, RecursionError):
        return "the input is nested too deeply to read"
    if type(error).__name__ == "PanicException":  # a Rust library (pyo3) gave up on the input
        return f"a parser refused the input: {str(error).splitlines()[0] if str(error) else ''}"
    return None


def fail(error: BaseException, debug: bool) -> int:
    """Print the one line for `error` and return the exit code."""
    line = explain(error)
    if line is not None:
        if debug:
            traceback.print_exception(error, file=sys.stderr)
        print(f"error: {line}", file=sys.stderr)
        return 2
    if debug:
        traceback.print_exception(error, file=sys.stderr)
        return BUG
    path = _write_traceback(error)
    first = str(error).splitlines()[0] if str(error) else ""
    print(
        f"error: unexpected {type(error).__name__}: {first} (a bug in substrates; the "
        f"traceback is in {path}; --debug prints it)",
        file=sys.stderr,
    )
    return BUG


def _write_traceback(error: BaseException) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    path = Path(tempfile.gettempdir()) / f"substrates-traceback-{stamp}-{os.getpid()}.txt"
    path.write_text("".join(traceback.format_exception(error)))
    return path
