"""The one family of errors substrates raises for what its user gave or its machine lacks.

Every layer subclasses `SubstratesError` (this module sits at the package root so that
datasets, models, backends and adapters all can), so a caller catches the family with one
`except SubstratesError`, and the command line prints any of them as one line and exits 2;
anything else is a bug. Each error carries what it is about where that is known: `path` (a
file or folder), `field` (a config field or a file's field) and `option` (a method's
parameter, by its Python name).

    >>> from substrates.errors import InputFileError, SubstratesError
    >>> error = InputFileError("truncated header", path="run.raw")
    >>> isinstance(error, SubstratesError), str(error), error.path.name
    (True, 'run.raw: truncated header', 'run.raw')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

UnavailableKind = Literal["missing-package", "no-gpu", "no-credentials", "no-device"]


class SubstratesError(Exception):
    """Base of every error that is the user's input or environment, never a bug.

    message: one line for the user; path: the file or folder it is about (put in front of
    the message unless the message already names it); field: the config or file field;
    option: the method parameter (Python name) whose value is refused.
    """

    def __init__(
        self,
        message: str = "",
        *,
        path: str | os.PathLike[str] | None = None,
        field: str | None = None,
        option: str | None = None,
    ) -> None:
        self.message = message
        self.path = None if path is None else Path(path)
        self.field = field
        self.option = option
        super().__init__(message)

    def __str__(self) -> str:
        if self.path is None or self.message.startswith(str(self.path)):
            return self.message
        return f"{self.path}: {self.message}"

    def about(self, path: str | os.PathLike[str]) -> SubstratesError:
        """This error, now naming `path` if it named no file yet (a reader's registry calls
        it, so each reader's messages need not repeat the path). Returns self."""
        if self.path is None:
            self.path = Path(path)
            self.args = (str(self),)
        return self


class InputFileError(SubstratesError, ValueError):
    """A file (or folder) whose bytes break its format or exceed a declared budget; every
    reader's error is one (RecordingError, EventError, CircuitFileError, ...)."""


class OptionError(SubstratesError, ValueError):
    """A method's parameter whose value is refused; `option` names it, in the caller's
    terms: the Python name (`window_ms`), which the command line replaces by its flag
    (`--window-ms`) before printing.

        >>> str(OptionError("must be > 0", option="window_ms"))
        'window_ms: must be > 0'
    """

    def __str__(self) -> str:
        text = super().__str__()
        return f"{self.option}: {text}" if self.option else text


class BackendUnavailableError(SubstratesError, ImportError):  # type: ignore[misc]  # path: ours
    """A backend that exists but cannot run here; `reason` says why and how to fix it."""

    def __init__(self, backend: str, kind: UnavailableKind, reason: str) -> None:
        super().__init__(f"backend {backend!r} is unavailable: {reason}")
        self.backend = backend
        self.kind = kind
        self.reason = reason


class UnknownBackendError(SubstratesError, LookupError):
    """A registry name that no installed package provides."""


class CapabilityError(SubstratesError, ValueError):
    """A request that exceeds what the backend can do; raised before any compute."""
