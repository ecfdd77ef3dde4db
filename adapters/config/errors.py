"""ConfigError: one line naming the file, the field and what is allowed."""

from __future__ import annotations

from pathlib import Path

from ...backends.errors import SubstratesError


class ConfigError(SubstratesError):
    """A hardware config that cannot be used as written."""

    def __init__(self, path: Path | str, field: str | None, message: str) -> None:
        where = f"{path}: field '{field}'" if field else f"{path}"
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.field = field
        self.message = message
