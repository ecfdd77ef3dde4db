"""The IBM path on a fake device: job ids recorded before waiting, collection after a crash,
and the token never written anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from .cli import only_run_folder, substrates

TOKEN = "tok-4f1d-NEVER-WRITE-ME"

CRASH_AFTER_SUBMIT = """
import os, sys
from substrates.adapters.methods import sample_run
sample_run.outcome = lambda *a, **k: os._exit(17)  # dies after the job is stored remotely
from substrates.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _files_under(*roots):
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in names:
                yield os.path.join(dirpath, name)


def test_crashed_run_is_collected_without_resubmitting(tmp_path, local_job_store) -> None:
    env = {**os.environ, "QISKIT_IBM_TOKEN": TOKEN}
    args = ["run", "sample", "--hardware", "ibm_fake_brisbane", "--seed", "4", "--shots", "3000"]
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_AFTER_SUBMIT, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert crashed.returncode == 17, crashed.stderr
    folder = only_run_folder(tmp_path / "runs")
    assert "substrates jobs collect" in crashed.stderr
    assert not (folder / "results.parquet").exists()
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "running"
    (job,) = json.loads((folder / "jobs.json").read_text())["jobs"]
    assert job["device"] == "fake_brisbane" and job["primitive"] == "sampler"
    stored = sorted(os.listdir(local_job_store))
    assert stored == [f"{job['job_id']}.json"]

    listed = substrates("jobs", "list", str(folder), cwd=tmp_path, env={"QISKIT_IBM_TOKEN": TOKEN})
    assert job["job_id"] in listed.stdout and "running" in listed.stdout

    collected = substrates(
        "jobs", "collect", str(folder), cwd=tmp_path, env={"QISKIT_IBM_TOKEN": TOKEN}
    )
    assert "grover3: 101:" in collected.stdout
    assert sorted(os.listdir(local_job_store)) == stored  # nothing was resubmitted
    table = pq.read_table(folder / "results.parquet").to_pylist()
    assert table[0]["bitstring"] == "101" and sum(r["count"] for r in table) == 3000
    assert all(r["probability"] is None for r in table)
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and "collected_at" in record
    (ended,) = json.loads((folder / "jobs.json").read_text())["jobs"]  # the collection's report
    assert ended["job_id"] == job["job_id"] and ended["session_id"] == job["session_id"]
    assert ended["usage_s"] == 0.0 and ended["execution_spans"] == [] and "finished_at" in ended

    again = substrates("jobs", "collect", str(folder), cwd=tmp_path)
    assert "already complete" in again.stdout

    outputs = [crashed.stdout, crashed.stderr, listed.stdout, collected.stdout, collected.stderr]
    assert not any(TOKEN in text for text in outputs)
    for path in _files_under(tmp_path, local_job_store):
        with open(path, "rb") as handle:
            assert TOKEN.encode() not in handle.read(), path


def test_a_job_lost_with_its_local_process_is_reported(tmp_path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    record = {
        "method": "sample",
        "status": "running",
        "parameters": {"circuits": ["c"], "shots": 10},
        "backend": {"backend": "quantum.ibm_fake", "options": {"device": "fake_brisbane"}},
    }
    (folder / "provenance.json").write_text(json.dumps(record))
    (folder / "jobs.json").write_text(json.dumps({"jobs": [{"job_id": "gone-1"}]}))
    result = substrates("jobs", "collect", str(folder), cwd=tmp_path, check=False)
    assert result.returncode == 2
    assert "local job gone-1 has no stored result" in result.stderr
    assert not (folder / "results.parquet").exists()


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("jobs.json", '[{"job_id": "j-1"}]', "holds a JSON list where substrates writes an object"),
        ("jobs.json", '{"jobs": {"job_id": "j-1"}}', 'its "jobs" must be a list of objects'),
        ("jobs.json", '{"jobs": [{"id": "j-1"}]}', 'each with a "job_id" string'),
        ("jobs.json", '{"jobs": [', "not JSON"),
        ("provenance.json", '["sample"]', "holds a JSON list"),
        ("provenance.json", "\x00\xff", "not JSON"),
    ],
)
def test_a_damaged_journal_is_refused_by_name_with_how_to_recover(
    tmp_path, name, text, reason
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    record = {"method": "sample", "status": "running", "parameters": {"shots": 10}}
    (folder / "provenance.json").write_text(json.dumps(record))
    (folder / "jobs.json").write_text(json.dumps({"jobs": [{"job_id": "j-1"}]}))
    (folder / name).write_bytes(text.encode("latin-1"))
    for action in ("list", "collect"):
        result = substrates("jobs", action, str(folder), cwd=tmp_path, check=False)
        assert result.returncode == 2, result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert f"{folder / name}: damaged" in line and reason in line
        assert "run again" in line or "run the method again" in line, line


def test_synchronous_runs_have_nothing_to_collect(tmp_path) -> None:
    substrates("run", "sample", "--shots", "10", cwd=tmp_path)
    folder = only_run_folder(tmp_path / "runs")
    (folder / "results.parquet").unlink()
    record = json.loads((folder / "provenance.json").read_text())
    record["status"] = "running"
    (folder / "provenance.json").write_text(json.dumps(record))
    result = substrates("jobs", "collect", str(folder), cwd=tmp_path, check=False)
    assert result.returncode == 2 and "submitted no jobs" in result.stderr


def test_check_with_credentials_never_prints_the_token(tmp_path) -> None:
    result = substrates("check", "ibm_hardware", cwd=tmp_path, env={"QISKIT_IBM_TOKEN": TOKEN})
    assert "quantum.ibm (hardware tier)" in result.stdout
    assert "set by the device chosen at run time" in result.stdout
    assert TOKEN not in result.stdout + result.stderr


def test_local_job_store_forgets_old_results(local_job_store) -> None:
    from qiskit import QuantumCircuit

    from substrates.backends.quantum import local_jobs
    from substrates.backends.registry import create_backend

    old = local_job_store / "old-job.json"
    old.write_text("{}")
    month_ago = os.path.getmtime(old) - (local_jobs.RETENTION_DAYS + 1) * 86400
    os.utime(old, (month_ago, month_ago))
    circuit = QuantumCircuit(1)
    circuit.x(0)
    circuit.measure_all()
    (result,) = create_backend("quantum.ibm_fake").sample([circuit], shots=10, seed=1)
    assert not old.exists()
    assert (local_job_store / f"{result.job_id}.json").exists()


CRASH_AFTER_ESTIMATOR_SUBMIT = """
import os, sys
from substrates.adapters.methods import estimate_run
estimate_run.outcome = lambda *a, **k: os._exit(17)  # dies after the job is stored remotely
from substrates.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_crashed_estimate_run_is_collected_without_resubmitting(tmp_path, local_job_store) -> None:
    """On fake_manila: an estimator program measures every device qubit (TREX's readout
    calibration), which on the 127 of fake_brisbane takes a minute to simulate."""
    (tmp_path / "manila.yaml").write_text(
        "substrate: quantum\nbackend: quantum.ibm_fake\noptions: {device: fake_manila}\n"
    )
    args = [
        "run",
        "estimate",
        "--hardware",
        "manila.yaml",
        "--seed",
        "4",
        "--precision",
        "0.02",
        "--observables",
        "ZIZ,IZI",
    ]
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_AFTER_ESTIMATOR_SUBMIT, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert crashed.returncode == 17, crashed.stderr
    folder = only_run_folder(tmp_path / "runs")
    assert "substrates jobs collect" in crashed.stderr
    assert not (folder / "results.parquet").exists()
    (job,) = json.loads((folder / "jobs.json").read_text())["jobs"]
    assert job["primitive"] == "estimator" and job["circuits"] == 2
    stored = sorted(os.listdir(local_job_store))
    assert stored == [f"{job['job_id']}.json"]

    collected = substrates("jobs", "collect", str(folder), cwd=tmp_path)
    assert "grover3: <ZIZ> = " in collected.stdout
    assert sorted(os.listdir(local_job_store)) == stored  # nothing was resubmitted
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    assert [r["observable"] for r in rows] == ["ZIZ", "IZI"]
    assert {r["job_id"] for r in rows} == {job["job_id"]}
    # grover3 marks 101: <ZIZ> = +1 and <IZI> = +1 ideally; the noisy device keeps the signs
    # (TREX, the estimator's default, may overshoot 1 by its statistical error)
    assert all(0.3 < r["value"] < 1.1 for r in rows)
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and "collected_at" in record
