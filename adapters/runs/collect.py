"""`substrates jobs collect`: finish a run from the hardware jobs it recorded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...backends.errors import SubstratesError
from .estimate_run import collect_estimate
from .folder import RunFolder
from .sample_run import collect_sample

COLLECTORS: dict[str, Callable[[str | Path], tuple[RunFolder, bool]]] = {
    "sample": collect_sample,
    "estimate": collect_estimate,
}
"""Method → what finishes its run in place from its recorded jobs (sampler or estimator)."""


def collect(run_dir: str | Path) -> tuple[RunFolder, bool]:
    """Finish a run whose jobs were submitted earlier, fetching results by job id; nothing
    is resubmitted. Returns the folder and whether anything had to be collected."""
    folder = RunFolder.existing(run_dir)
    method = folder.read_json("provenance.json")["method"]
    if method not in COLLECTORS:
        raise SubstratesError(
            f"{folder.path}: cannot collect a {method!r} run; jobs collect finishes "
            f"{' and '.join(COLLECTORS)} runs (rerun a {method!r} run: its recorded jobs "
            "are collected, not resubmitted, where the method resumes)"
        )
    return COLLECTORS[method](folder.path)
