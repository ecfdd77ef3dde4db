"""Run folders: results.parquet, provenance.json, plots, hardware job ids."""

from .collect import collect
from .folder import RunFolder
from .sample_run import run_sample

__all__ = ["RunFolder", "collect", "run_sample"]
