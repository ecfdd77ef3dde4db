"""A user's script, type-checked as a user would: mypy and pyright find `substrates` (the
installed package, with py.typed), resolve every import, and know that load_backend with a
quantum config name gives a QuantumBackend."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

SCRIPT = """\
import substrates
from substrates.backends.quantum.base import QuantumBackend
from substrates.datasets.quantum.generators import grover

backend = substrates.load_backend("aer_statevector")
reveal_type(backend)
other = substrates.load_backend("crn_ode")
reveal_type(other)
anything = substrates.load_backend("my_config.yaml")
reveal_type(anything)
quantum: QuantumBackend = backend
counts: int = backend.sample([grover("101")], shots=10)[0].shots
run = substrates.run("qrim", uncertainty=8)
reveal_type(run)
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "user_script.py"
    path.write_text(SCRIPT)
    return path


def test_mypy_resolves_the_package_and_its_types(script) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            "--no-incremental",
            "--python-executable",
            sys.executable,
            str(script),
        ],
        capture_output=True,
        text=True,
        cwd=script.parent,
        timeout=600,
    )
    out = result.stdout
    assert "import-not-found" not in out and "import-untyped" not in out, out
    revealed = [
        line.split("Revealed type is ")[1]
        for line in out.splitlines()
        if "Revealed type is" in line
    ]
    assert revealed == [
        '"substrates.backends.quantum.base.QuantumBackend"',
        '"substrates.backends.crn.base.CRNBackend"',
        '"substrates.backends.base.Backend"',
        '"substrates.adapters.runs.run.Run"',
    ], out
    assert "error" not in out.replace("note:", ""), out


@pytest.mark.skipif(shutil.which("pyright") is None, reason="pyright is not installed")
def test_pyright_resolves_the_package_and_its_types(script) -> None:
    result = subprocess.run(
        ["pyright", "--outputjson", "--pythonpath", sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=script.parent,
        timeout=600,
    )
    report = json.loads(result.stdout)
    messages = [d["message"] for d in report["generalDiagnostics"]]
    assert not [d for d in report["generalDiagnostics"] if d["severity"] == "error"], messages
    revealed = [m for m in messages if m.startswith("Type of")]
    assert [m.split(" is ")[-1] for m in revealed] == [
        '"QuantumBackend"',
        '"CRNBackend"',
        '"Backend"',
        '"Run"',
    ], messages
