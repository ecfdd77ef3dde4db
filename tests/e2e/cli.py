"""Run the installed `substrates` command as a user would, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def substrates(*args: str, cwd: Path, env: dict[str, str] | None = None, check: bool = True):
    """`python -m substrates ARGS` with the test's environment; returns the CompletedProcess."""
    result = subprocess.run(
        [sys.executable, "-m", "substrates", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def only_run_folder(root: Path) -> Path:
    (folder,) = [p for p in root.iterdir() if p.is_dir()]
    return folder


def wait_for(condition, seconds: float, what: str) -> None:
    """Poll `condition` every 50 ms; fail naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
