"""Registry names, statuses, and the promise that `import substrates` stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from substrates.backends.registry import create_backend, get_backend_class, list_backends, names
from substrates.cli import main
from substrates.errors import BackendUnavailableError, UnknownBackendError

HEAVY = ("qiskit", "qiskit_aer", "qiskit_ibm_runtime", "pennylane", "jax", "torch", "mne")


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    return {m for m in HEAVY if m in loaded}


def test_import_substrates_imports_no_heavy_library() -> None:
    assert _imported_after("import substrates") == set()


def test_listing_backends_imports_no_heavy_library() -> None:
    code = "from substrates.cli import main; main(['backends', '--json'])"
    assert _imported_after(code) == set()


def test_builtin_names() -> None:
    assert names("quantum") == [
        "quantum.aer",
        "quantum.aer_gpu",
        "quantum.ibm",
        "quantum.ibm_fake",
        "quantum.pennylane",
    ]


def test_unknown_name_suggests_closest() -> None:
    with pytest.raises(UnknownBackendError, match=r"did you mean 'quantum\.pennylane'"):
        get_backend_class("quantum.penylane")


def test_statuses_give_reasons(monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("QISKIT_IBM_TOKEN", raising=False)
    rows = {r.name: r for r in list_backends()}
    assert rows["quantum.aer"].usable and rows["quantum.aer"].tier == "simulator"
    assert not rows["quantum.aer_gpu"].usable and "no CUDA device" in rows["quantum.aer_gpu"].reason
    assert rows["quantum.ibm"].tier == "hardware"


def test_credentials_from_the_environment_make_ibm_usable(monkeypatch) -> None:
    monkeypatch.setenv("QISKIT_IBM_TOKEN", "not-a-real-token")
    assert {r.name: r for r in list_backends()}["quantum.ibm"].usable


def test_missing_package_names_the_pip_command(monkeypatch) -> None:
    from substrates.backends.quantum import pennylane

    real = pennylane.find_spec
    monkeypatch.setattr(
        pennylane, "find_spec", lambda m: None if m == "pennylane_lightning" else real(m)
    )
    with pytest.raises(BackendUnavailableError, match="pip install 'substrates") as info:
        create_backend("quantum.pennylane", {"device": "lightning.qubit"})
    assert info.value.kind == "missing-package"


def test_backends_command_table_and_json(capsys) -> None:
    assert main(["backends"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["NAME", "SUBSTRATE", "TIER", "STATUS"]
    assert "quantum.ibm_fake" in table
    assert main(["backends", "--json", "--substrate", "quantum"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == set(names("quantum"))
    assert set(rows[0]) == {"name", "substrate", "tier", "usable", "reason"}


def test_options_forbid_unknown_fields() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        create_backend("quantum.aer", {"shots": 100})
