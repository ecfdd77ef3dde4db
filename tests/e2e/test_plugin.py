"""A third-party backend as a user installs one: examples/plugin built and installed from
its own folder registers `quantum.numpy` through the entry point, `substrates backends`
lists it, and the shipped quantum conformance suite passes on it; a backend that cannot
run here stops the suite with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def plugin_env(plugin_site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(plugin_site)}


def _run(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_the_example_plugin_registers_and_passes_the_conformance_suite(plugin_env, tmp_path):
    listed = _run("substrates", "backends", "--substrate", "quantum", env=plugin_env, cwd=tmp_path)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("quantum.numpy"))
    assert row.split()[1:] == ["quantum", "simulator", "usable"]
    suite = _run("substrates.testing", "quantum.numpy", env=plugin_env, cwd=tmp_path)
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert "passed" in suite.stdout and "failed" not in suite.stdout


def test_a_backend_that_cannot_run_here_stops_the_suite_with_one_line(tmp_path):
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    result = _run("substrates.testing", "quantum.aer_gpu", env=env, cwd=tmp_path)
    assert result.returncode == 2 and "no CUDA device" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
