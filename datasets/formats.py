"""One shape for every substrate's file formats: a registry from file endings to readers.

Each substrate keeps a `FORMATS` registry beside its readers (datasets/<substrate>/), as
fsspec keeps one from protocols to file systems: the command line, the backends and a
Python caller all pick a reader through it, so a file's format is decided in one place and
every refusal is an `InputFileError` whose `path` is the file.

    >>> from substrates.datasets.crn import FORMATS
    >>> from substrates.datasets.crn.files import example_path
    >>> FORMATS.of("alarm.bif.gz").name, FORMATS.read(example_path()).variables
    ('bif', 8)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..errors import InputFileError

T = TypeVar("T")
FOLDER = "/"
"""The ending that stands for a folder (a format stored as several files)."""


@dataclass(frozen=True)
class Format(Generic[T]):
    """A file format: `name` (its key), `title` (what a person calls it), `endings` (lower
    case, longest matched first; FOLDER for a folder; none: chosen only by name),
    `read(path, **options)`, which returns the substrate's noun or raises InputFileError,
    and `write(noun, path, **options)` where the format can be written."""

    name: str
    title: str
    endings: tuple[str, ...]
    read: Callable[..., T]
    write: Callable[..., None] | None = None


class Formats(Generic[T]):
    """The formats a substrate reads, by ending (case-insensitive) or by name.

    what: the noun read, for messages ("factor graph"); error: the substrate's
    InputFileError subclass raised for an ending or name it does not know.
    """

    def __init__(
        self,
        what: str,
        formats: Iterable[Format[T]],
        error: type[InputFileError] = InputFileError,
    ) -> None:
        self.what, self.error = what, error
        self._formats = {fmt.name: fmt for fmt in formats}
        self._endings = sorted(
            ((ending, fmt) for fmt in self._formats.values() for ending in fmt.endings),
            key=lambda pair: len(pair[0]),
            reverse=True,
        )

    def __iter__(self) -> Iterator[Format[T]]:
        return iter(self._formats.values())

    def __getitem__(self, name: str) -> Format[T]:
        if name not in self._formats:
            known = ", ".join(self._formats)
            raise self.error(f"unknown {self.what} format {name!r}; known: {known}")
        return self._formats[name]

    def usage(self) -> str:
        """The endings a person may use: ".fg (libDAI), .bif/.bif.gz (BIF) or a folder (...)"."""
        parts = [
            "/".join("a folder" if e == FOLDER else e for e in fmt.endings) + f" ({fmt.title})"
            for fmt in self._formats.values()
            if fmt.endings
        ]
        return ", ".join(parts[:-1]) + f" or {parts[-1]}" if len(parts) > 1 else "".join(parts)

    def of(self, path: str | os.PathLike[str]) -> Format[T]:
        """The format of `path` by its ending (a folder: the FOLDER format)."""
        path = Path(path)
        if path.is_dir():
            found = next((fmt for ending, fmt in self._endings if ending == FOLDER), None)
            if found is None:
                raise self.error(f"a folder, not a {self.what} file", path=path)
            return found
        name = path.name.lower()
        for ending, fmt in self._endings:
            if ending != FOLDER and name.endswith(ending):
                return fmt
        raise self.error(f"unknown {self.what} format; use {self.usage()}", path=path)

    def read(self, path: str | os.PathLike[str], format: str | None = None, **options: Any) -> T:
        """Read `path` with the reader of its ending, or of the format named `format`;
        `options` go to the reader. Every refusal is an InputFileError naming the file."""
        path = Path(path)
        fmt = self[format] if format is not None else self.of(path)
        try:
            return fmt.read(path, **options)
        except InputFileError as error:
            raise error.about(path) from None

    def write(
        self, value: Any, path: str | os.PathLike[str], format: str | None = None, **options: Any
    ) -> None:
        """Write `value` (what the format's writer takes) to `path`, in the format of its
        ending or the one named `format`."""
        path = Path(path)
        fmt = self[format] if format is not None else self.of(path)
        if fmt.write is None:
            writable = ", ".join(f.endings[0] for f in self if f.write is not None and f.endings)
            raise self.error(
                f"{fmt.title} files are read, not written; write {writable}", path=path
            )
        try:
            fmt.write(value, path, **options)
        except InputFileError as error:
            raise error.about(path) from None
