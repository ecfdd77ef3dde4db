"""Whitespace-separated tokens of a text file with their line numbers, for the readers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .factor_graph import FactorGraphError

MAX_FILE_BYTES = 256 << 20
"""Largest factor-graph file read by default (bytes)."""
MAX_TABLE_ENTRIES = 10_000_000
"""Most entries one factor's table may have by default (80 MB of float64)."""


class Tokens:
    """Reads integers and numbers in order, streamed from the file (a 256 MB file is never
    held as tokens: one line at a time); errors name the file and line. Lines starting
    with '#' are comments."""

    def __init__(self, path: Path, max_bytes: int = MAX_FILE_BYTES) -> None:
        if not path.is_file():
            raise FactorGraphError(f"{path}: no such file")
        size = path.stat().st_size
        if size > max_bytes:
            raise FactorGraphError(f"{path}: {size:,} bytes, more than the {max_bytes:,} read")
        self.path = path
        self.line = 1
        self._stream = self._read()
        self._next: tuple[str, int] | None = self._pull()

    def _read(self) -> Iterator[tuple[str, int]]:
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.lstrip().startswith("#"):
                    for token in line.split():
                        yield token, number

    def _pull(self) -> tuple[str, int] | None:
        try:
            return next(self._stream, None)
        except UnicodeDecodeError:
            raise FactorGraphError(f"{self.path}: not a text file (expected UTF-8 text)") from None

    def error(self, message: str) -> FactorGraphError:
        return FactorGraphError(f"{self.path}:{self.line}: {message}")

    def word(self, what: str) -> str:
        if self._next is None:
            raise FactorGraphError(f"{self.path}: file ends where {what} was expected")
        token, self.line = self._next
        self._next = self._pull()
        return token

    def integer(self, what: str, minimum: int) -> int:
        token = self.word(what)
        try:
            value = int(token)
        except ValueError:
            raise self.error(f"{what}: expected an integer, got {token!r}") from None
        if value < minimum:
            raise self.error(f"{what}: {value} is below {minimum}")
        return value

    def number(self, what: str) -> float:
        token = self.word(what)
        try:
            return float(token)
        except ValueError:
            raise self.error(f"{what}: expected a number, got {token!r}") from None

    def end(self) -> None:
        if self._next is not None:
            token, self.line = self._next
            raise self.error(f"unexpected {token!r} after the last entry (wrong counts?)")
