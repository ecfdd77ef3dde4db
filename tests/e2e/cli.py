"""Run the `substrates` command as a user would: through the console script's entry
(`substrates.cli.main`) in this process, or as `python -m substrates` where the process
itself is under test (signals, memory limits, a crash between two steps); and the
benchmark scripts in their `--smoke` mode."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path


def substrates(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    check: bool = True,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`substrates ARGS` in `cwd` with `env` added to the environment; returns what a
    subprocess would (exit code, stdout, stderr). In this process by default: the same
    `main(argv)` the console script calls, with stdout and stderr captured, the working
    folder and the environment set for the call and restored after it. `process=True`
    starts `python -m substrates` instead (a few seconds of imports each time)."""
    if process:
        result = subprocess.run(
            [sys.executable, "-m", "substrates", *args],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=600,
        )
    else:
        result = _in_process(list(args), cwd, env or {})
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def _in_process(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    from substrates.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(cwd),
        _environment(env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = main(args)
        except SystemExit as exit:  # argparse: --help (0) and usage errors (2)
            code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return subprocess.CompletedProcess(["substrates", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _environment(changes: dict[str, str]) -> Iterator[None]:
    """os.environ with `changes` for the block, exactly as before after it."""
    before = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def benchmark_smoke(script: str) -> str:
    """What `python benchmarks/SCRIPT --smoke` prints (it must exit 0)."""
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--smoke"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return result.stdout
