"""Whitespace-separated tokens of a text file with their line numbers, for the readers."""

from __future__ import annotations

from pathlib import Path

from .factor_graph import FactorGraphError


class Tokens:
    """Reads integers and numbers in order; errors name the file and line. Lines starting
    with '#' are comments."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise FactorGraphError(f"{path}: no such file")
        self.path = path
        self.items = [
            (token, number)
            for number, text in enumerate(path.read_text().splitlines(), start=1)
            if not text.lstrip().startswith("#")
            for token in text.split()
        ]
        self.position = 0
        self.line = 1

    def error(self, message: str) -> FactorGraphError:
        return FactorGraphError(f"{self.path}:{self.line}: {message}")

    def word(self, what: str) -> str:
        if self.position >= len(self.items):
            raise FactorGraphError(f"{self.path}: file ends where {what} was expected")
        token, self.line = self.items[self.position]
        self.position += 1
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
        if self.position < len(self.items):
            token, self.line = self.items[self.position]
            raise self.error(f"unexpected {token!r} after the last entry (wrong counts?)")
