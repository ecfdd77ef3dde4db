"""`substrates run sample` end to end: run folders, provenance, plots, bad input."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from qiskit import qasm2, qpy

from substrates.datasets.quantum.generators import (
    ghz,
    grover,
    grover_iterations,
    grover_success_probability,
)

from .cli import only_run_folder, substrates


def test_default_job_runs_grover_on_aer(tmp_path) -> None:
    result = substrates("run", "sample", "--seed", "1", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "runs")
    assert "grover3: 101:" in result.stdout and str(folder.name) in result.stdout
    assert sorted(p.name for p in folder.iterdir()) == [
        "circuits.qpy",
        "counts.png",
        "provenance.json",
        "results.parquet",
        "summary.json",
    ]
    table = pq.read_table(folder / "results.parquet").to_pylist()
    top = table[0]
    assert top["bitstring"] == "101" and top["shots"] == 4096
    assert top["probability"] == pytest.approx(grover_success_probability(3, 2), abs=1e-12)
    assert sum(r["count"] for r in table) == 4096
    assert sum(r["probability"] for r in table) == pytest.approx(1.0, abs=1e-12)
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and record["method"] == "sample"
    assert record["backend"] == {
        "backend": "quantum.aer",
        "options": {
            "method": "statevector",
            "precision": "double",
            "noise_model": None,
            "max_parallel_threads": 0,
        },
    }
    assert record["parameters"]["seed"] == 1 and record["wall_time_s"] > 0
    assert {"qiskit", "qiskit-aer", "substrates"} <= set(record["versions"])
    assert (folder / "counts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seeded_runs_are_reproducible(tmp_path) -> None:
    for out in ("a", "b"):
        substrates("run", "sample", "--seed", "7", "--out", out, cwd=tmp_path)
    tables = [pq.read_table(only_run_folder(tmp_path / o) / "results.parquet") for o in "ab"]
    assert tables[0].equals(tables[1])


@pytest.mark.parametrize("config", ["pennylane_lightning", "aer_mps", "aer_noisy_brisbane"])
def test_other_configs_run_the_same_job(tmp_path, config: str) -> None:
    substrates(
        "run", "sample", "--hardware", config, "--seed", "3", "--shots", "2000", cwd=tmp_path
    )
    table = pq.read_table(only_run_folder(tmp_path / "runs") / "results.parquet").to_pylist()
    assert table[0]["bitstring"] == "101"
    exact = config != "aer_noisy_brisbane"
    assert (table[0]["probability"] is not None) == exact


def test_qpy_and_qasm2_files(tmp_path) -> None:
    circuits = [ghz(4), grover("0110")]
    with (tmp_path / "two.qpy").open("wb") as handle:
        qpy.dump(circuits, handle)
    (tmp_path / "ghz.qasm").write_text(qasm2.dumps(ghz(3)))
    substrates("run", "sample", "--circuit", "two.qpy", "--out", "q", cwd=tmp_path)
    substrates("run", "sample", "--circuit", "ghz.qasm", "--out", "g", "--no-exact", cwd=tmp_path)
    rows = pq.read_table(only_run_folder(tmp_path / "q") / "results.parquet").to_pylist()
    assert {r["circuit"] for r in rows} == {"ghz4", "grover4_0110"}
    marked = next(r for r in rows if r["circuit"] == "grover4_0110")
    assert marked["bitstring"] == "0110"
    expected = grover_success_probability(4, grover_iterations(4))
    assert marked["probability"] == pytest.approx(expected, abs=1e-12)
    rows = pq.read_table(only_run_folder(tmp_path / "g") / "results.parquet").to_pylist()
    assert {r["bitstring"] for r in rows} == {"000", "111"}
    assert all(r["probability"] is None for r in rows)


FEED_FORWARD = """OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
c[0] = measure q[0];
if (c[0]) x q[1];
c[1] = measure q[1];
"""


@pytest.mark.parametrize("config", ["aer_statevector", "aer_mps", "pennylane_default"])
def test_a_feed_forward_circuit_records_its_true_probabilities(tmp_path, config: str) -> None:
    """The issue's circuit: the measured bit decides the X, so only 00 and 11 occur."""
    (tmp_path / "cond.qasm").write_text(FEED_FORWARD)
    args = ["run", "sample", "--circuit", "cond.qasm", "--hardware", config, "--seed", "2"]
    substrates(*args, cwd=tmp_path)
    rows = pq.read_table(only_run_folder(tmp_path / "runs") / "results.parquet").to_pylist()
    assert {r["bitstring"] for r in rows} == {"00", "11"}
    assert all(r["probability"] == pytest.approx(0.5, abs=1e-12) for r in rows)
    assert sum(r["count"] for r in rows) == rows[0]["shots"]


def test_exact_results_a_noisy_backend_cannot_give_are_one_line(tmp_path) -> None:
    (tmp_path / "cond.qasm").write_text(FEED_FORWARD)
    (tmp_path / "noisy_dm.yaml").write_text(
        "substrate: quantum\nbackend: quantum.aer\n"
        "options: {method: density_matrix, noise_model: fake_manila}\n"
    )
    args = ["run", "sample", "--circuit", "cond.qasm", "--hardware", "noisy_dm.yaml"]
    result = substrates(*args, cwd=tmp_path, check=False)
    assert result.returncode == 2 and "under a noise model are not available" in result.stderr
    assert "--no-exact" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()
    substrates(*args, "--no-exact", "--shots", "200", cwd=tmp_path)  # counts alone are fine
    rows = pq.read_table(only_run_folder(tmp_path / "runs") / "results.parquet").to_pylist()
    assert sum(r["count"] for r in rows) == 200 and all(r["probability"] is None for r in rows)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("OPENQASM 3.0;\nqubit[2] q;\nfoo q[0];\n", "cannot parse"),
        (None, "--circuit: bad.qasm: no such file or folder"),
    ],
)
def test_bad_circuit_file_writes_nothing(tmp_path, content, message) -> None:
    if content is not None:
        (tmp_path / "bad.qasm").write_text(content)
    result = substrates("run", "sample", "--circuit", "bad.qasm", cwd=tmp_path, check=False)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_too_many_qubits_fails_before_any_file_is_written(tmp_path) -> None:
    with (tmp_path / "wide.qpy").open("wb") as handle:
        qpy.dump([ghz(40)], handle)
    result = substrates("run", "sample", "--circuit", "wide.qpy", cwd=tmp_path, check=False)
    assert result.returncode == 2 and "allows at most" in result.stderr
    assert not (tmp_path / "runs").exists()


def test_help_explains_commands(tmp_path) -> None:
    out = substrates("--help", cwd=tmp_path).stdout
    for command in ("backends", "check", "run", "jobs"):
        assert command in out
    sample_help = substrates("run", "sample", "--help", cwd=tmp_path).stdout
    assert "--hardware" in sample_help and "Grover" in sample_help


@pytest.mark.parametrize("name", ["grover3", "grover3.qasm"])
def test_a_shipped_circuit_is_found_by_name_from_any_folder(tmp_path, name) -> None:
    """The tour's `check aer_noisy_brisbane --circuit grover3.qasm` works outside the
    examples folder; a file of that name in the working folder would win."""
    checked = substrates("check", "aer_noisy_brisbane", "--circuit", name, cwd=tmp_path)
    assert "1 in grover3.qasm fit" in checked.stdout
    substrates("run", "sample", "--circuit", name, "--shots", "10", cwd=tmp_path)
    record = json.loads((only_run_folder(tmp_path / "runs") / "provenance.json").read_text())
    assert record["parameters"]["circuit_file"].endswith("examples/grover3.qasm")
    missing = substrates(
        "check", "aer_statevector", "--circuit", "nothere", cwd=tmp_path, check=False
    )
    assert missing.returncode == 2 and "nor a shipped one (grover3)" in missing.stderr
