"""ConfigError: one line naming the file, the field and what is allowed."""

from __future__ import annotations

import os

from ...errors import SubstratesError


class ConfigError(SubstratesError):
    """A hardware config that cannot be used as written: `path` and `field` name where."""

    def __init__(self, path: str | os.PathLike[str], field: str | None, message: str) -> None:
        text = f"field '{field}': {message}" if field else message
        super().__init__(text, path=path, field=field)
