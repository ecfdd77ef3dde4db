"""A pytest plugin that builds the `backend` fixture the suites need from the command line:
`--substrates-backend NAME` (registry name, shipped config or config file) and
`--substrates-options JSON`. `run_conformance` loads it; `pytest -p substrates.testing.plugin`
does too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..adapters.config.build import load_backend
from ..backends.base import Backend
from ..errors import SubstratesError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("substrates", "substrates conformance")
    group.addoption(
        "--substrates-backend",
        metavar="NAME",
        help="registry name, shipped config name or config file to test",
    )
    group.addoption(
        "--substrates-options",
        metavar="JSON",
        default="{}",
        help="the backend's options as JSON (over a config's)",
    )


@pytest.fixture(scope="module")
def backend(request: pytest.FixtureRequest) -> Backend:
    """The backend named on the command line; the session stops if it cannot run here."""
    name = request.config.getoption("--substrates-backend")
    if name is None:
        pytest.skip("no backend given: pass --substrates-backend NAME")
    options: dict[str, Any] = json.loads(request.config.getoption("--substrates-options"))
    try:
        return load_backend(name, **options)
    except SubstratesError as error:
        pytest.exit(f"cannot test {name}: {error}", returncode=2)
