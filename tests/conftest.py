"""Shared fixtures: an isolated local job store and quiet fake-snapshot warnings; one
persistent JAX compilation cache for the test process and every command it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Every `substrates run hh-fit` the tests start is a new process that compiles the same
# jaxley simulations again (~20 s of a 60 s fit). A persistent cache, shared by all of
# them, skips that after the first; it is keyed on the program, jax's version and its
# flags, so what runs is what would have been compiled (a fit from a warm cache gives
# the same results). Set before anything imports jax; a cache the caller names is kept.
os.environ.setdefault(
    "JAX_COMPILATION_CACHE_DIR",
    str(Path(tempfile.gettempdir()) / f"substrates-tests-jax-cache-{os.getuid()}"),
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")


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
