"""The shipped CML suite (substrates.testing.cml) on every shipped cml config."""

from __future__ import annotations

import pytest

from substrates.testing.cml import TestCMLBackend

from .backends import configs_of, shipped_backend

__all__ = ["TestCMLBackend"]


@pytest.fixture(scope="module", params=configs_of("cml"))
def backend(request: pytest.FixtureRequest):
    return shipped_backend(request.param)
