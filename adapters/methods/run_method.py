"""`substrates.run`: a method run from Python, as `substrates run METHOD` runs it."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from ..runs.progress import Bars, Progress
from ..runs.run import Run
from .registry import get_method


def run(
    method: str,
    /,
    *,
    out: str | os.PathLike[str] = "runs",
    progress: bool | Progress = True,
    **parameters: Any,
) -> Run:
    """Run `method` and return what it wrote.

    parameters: the method's options, as `substrates run METHOD --help` lists them, with
    underscores (`window_ms=100`, `hardware="ibm_fake_brisbane"`); each is checked before
    anything is written. out: the folder that receives the run folder. progress: True
    draws bars on stderr (where it is a terminal), False none, or any `Progress`.
    Bad input raises SubstratesError with the same line the command prints.

    Examples:
        >>> import substrates, tempfile
        >>> run = substrates.run("crn-validate", evidence="6=1,7=1", progress=False,
        ...                      out=tempfile.mkdtemp())
        >>> sizes = run.summary["sizes"]
        >>> sizes["crn_reduced"]["reactions"] < sizes["crn_original"]["reactions"]
        True
    """
    declared = get_method(method)
    validated = declared.validated(parameters)
    bars = Bars() if progress is True else nullcontext(progress or None)
    with bars as report:
        folder = declared.execute(validated, Path(out), report)
    return Run.open(folder.path)
