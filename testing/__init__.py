"""Conformance suites for backends, shipped with the package: the same assertions the
project runs on its own backends, runnable against any registered backend, a plugin's too.

From a shell (needs pytest, e.g. `pip install "substrates[testing]"`):

    python -m substrates.testing quantum.aer
    python -m substrates.testing aer_mps                      # a shipped config
    python -m substrates.testing my_config.yaml -- -x -k grover

From Python: `run_conformance("quantum.aer")` returns pytest's exit code. In a plugin's own
test suite, import the suite class and give it a `backend` fixture:

    from substrates.testing.quantum import TestQuantumBackend

    @pytest.fixture(scope="module")
    def backend():
        return MyBackend()

Suites: `quantum.TestQuantumBackend`, `mea.TestMEABackend`, `events.TestEventsBackend`,
`crn.TestCRNBackend`, `cml.TestCMLBackend`. Each module also holds the independent
references its assertions use (state vectors, brute-force marginals, files built from
published byte layouts).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

SUITES = {
    "quantum": "substrates.testing.quantum",
    "mea": "substrates.testing.mea",
    "events": "substrates.testing.events",
    "crn": "substrates.testing.crn",
    "cml": "substrates.testing.cml",
}
"""Substrate → the module of its conformance suite."""


def run_conformance(
    backend: str, options: Mapping[str, Any] | None = None, pytest_args: Sequence[str] = ()
) -> int:
    """Run the conformance suite of `backend`'s substrate against it.

    backend: a registry name ('quantum.aer'), a shipped config's name or a config file;
    options: the backend's options (over a config's); pytest_args: passed on (-x, -k ...).
    Returns pytest's exit code (0: every test passed or was skipped with its reason). A
    backend that cannot run here stops the suite at once with the reason.
    """
    import pytest

    from ..adapters.config.build import load_backend

    chosen = dict(options or {})
    substrate = load_backend(backend, **chosen).substrate  # refuses now, with the reason
    suite = importlib.import_module(SUITES[substrate])
    return int(
        pytest.main(
            [
                str(suite.__file__),
                "-p",
                "substrates.testing.plugin",
                "-p",
                "no:cacheprovider",
                "-c",
                os.devnull,
                "--substrates-backend",
                backend,
                "--substrates-options",
                json.dumps(chosen),
                *pytest_args,
            ]
        )
    )
