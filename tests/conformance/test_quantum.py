"""The shipped quantum suite (substrates.testing.quantum) on every shipped quantum config,
plus the GPU tier's code path on the CPU."""

from __future__ import annotations

import pytest

from substrates.adapters.config import load_config
from substrates.backends.registry import names
from substrates.testing.quantum import TestQuantumBackend

from .backends import CASES, QUANTUM_CONFIGS, build

__all__ = ["TestQuantumBackend"]


@pytest.fixture(scope="module", params=CASES)
def backend(request: pytest.FixtureRequest):
    return build(request.param)


def test_every_registered_backend_has_a_shipped_config() -> None:
    covered = {load_config(name).config.backend for name in QUANTUM_CONFIGS}
    assert set(names("quantum")) <= covered
