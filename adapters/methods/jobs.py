"""`substrates jobs collect`: finish a run from the hardware jobs it recorded."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputFileError, SubstratesError
from ..runs.folder import RECOVER, RunFolder
from .lifecycle import collect as collect_jobs
from .registry import get_method, methods


def collect(run_dir: str | Path) -> tuple[RunFolder, bool]:
    """Finish a run whose jobs were submitted earlier, fetching results by job id; nothing
    is resubmitted. Returns the folder and whether anything had to be collected.

    The run's method must journal its jobs (`Method.collect`); any method that does,
    a plugin's included, is finished this way."""
    folder = RunFolder.existing(run_dir)
    name = folder.read_record("provenance.json").get("method")
    if not isinstance(name, str):
        raise InputFileError(
            f'{folder.file("provenance.json")}: damaged: no "method" name; '
            f"{RECOVER['provenance.json']}"
        )
    method = get_method(name)
    if method.collect is None:
        able = " and ".join(m.name for m in methods().values() if m.collect is not None)
        raise SubstratesError(
            f"cannot collect a {name!r} run; jobs collect finishes {able} runs (rerun a "
            f"{name!r} run: its recorded jobs are collected, not resubmitted, where the "
            "method resumes)",
            path=folder.path,
        )
    return collect_jobs(method, folder.path)
