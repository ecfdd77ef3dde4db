"""The shipped CRN suite (substrates.testing.crn) on every shipped crn config."""

from __future__ import annotations

import pytest

from substrates.testing.crn import TestCRNBackend

from .backends import configs_of, shipped_backend

__all__ = ["TestCRNBackend"]


@pytest.fixture(scope="module", params=configs_of("crn"))
def backend(request: pytest.FixtureRequest):
    return shipped_backend(request.param)
