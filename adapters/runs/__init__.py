"""Run folders: results.parquet, provenance.json, plots, hardware job ids."""

from .folder import RunFolder
from .run import Run

__all__ = ["Run", "RunFolder"]
