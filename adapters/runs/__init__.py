"""Run folders: results.parquet, provenance.json, plots, hardware job ids."""

from .folder import RunFolder
from .sample_run import collect, run_sample

__all__ = ["RunFolder", "collect", "run_sample"]
