"""Run folders: results.parquet, provenance.json, plots, hardware job ids.

`Run` and `RunFolder` are imported on first use, so that importing a light submodule
(`lifetime`, `stopping`: the CLI's signal handling) does not import pyarrow first."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .folder import RunFolder
    from .run import Run

__all__ = ["Run", "RunFolder"]
_WHERE = {"Run": ".run", "RunFolder": ".folder"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
