"""Shared fixtures: an isolated local job store and quiet fake-snapshot warnings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def local_job_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test gets its own store for runtime local-mode jobs."""
    store = tmp_path_factory.mktemp("local-jobs")
    monkeypatch.setenv("SUBSTRATES_LOCAL_JOBS", str(store))
    return store


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/plugin built and installed into a folder of its own (its entry point and
    dist-info included): put it on PYTHONPATH and `quantum.numpy` is registered."""
    site = tmp_path_factory.mktemp("plugin-site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--target", str(site), str(Path(__file__).resolve().parents[1] / "examples" / "plugin")],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return site
