"""Shared fixtures: an isolated local job store and quiet fake-snapshot warnings."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def local_job_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test gets its own store for runtime local-mode jobs."""
    store = tmp_path_factory.mktemp("local-jobs")
    monkeypatch.setenv("SUBSTRATES_LOCAL_JOBS", str(store))
    return store
