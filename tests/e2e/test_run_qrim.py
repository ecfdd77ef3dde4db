"""`substrates run qrim` as a user runs it: the default job, other backends, bad input."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from .cli import only_run_folder, substrates


def test_default_job_prints_policy_returns_and_queries(tmp_path) -> None:
    result = substrates("run", "qrim", cwd=tmp_path)
    out = result.stdout
    assert "robust policy (QRIM):" in out and "H" in out and "G" in out
    assert "worst-case return: QRIM policy" in out and "nominal policy" in out
    assert "exhaustive search: 16" in out
    folder = only_run_folder(tmp_path / "runs")
    assert {p.name for p in folder.iterdir()} == {
        "results.parquet", "policy.parquet", "robustness.parquet", "provenance.json", "qrim.png",
    }  # fmt: skip
    minimizations = pq.read_table(folder / "results.parquet")
    assert {"oracle_queries", "classical_queries", "circuits", "true_min"} <= set(
        minimizations.column_names
    )
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert summary["exact_minimum_rate"] >= 0.95
    assert summary["policy_agreement_with_exhaustive"] >= 0.99
    assert summary["worst_case_return_robust"] >= summary["worst_case_return_nominal"]
    robustness = pq.read_table(folder / "robustness.parquet").to_pylist()
    assert len(robustness) == 16
    assert min(r["return_qrim_policy"] for r in robustness) == pytest.approx(
        summary["worst_case_return_robust"]
    )


@pytest.mark.parametrize("config", ["aer_mps", "pennylane_lightning"])
def test_same_command_on_other_backends(tmp_path, config: str) -> None:
    result = substrates(
        "run", "qrim", "--hardware", config, "--env", "inventory", "--uncertainty", "8",
        cwd=tmp_path,
    )  # fmt: skip
    assert "exhaustive search: 8" in result.stdout


@pytest.mark.slow
def test_q_learning_with_the_gate_oracle(tmp_path) -> None:
    result = substrates(
        "run", "qrim", "--outer", "q_learning", "--oracle", "gates", "--env", "inventory",
        "--uncertainty", "4", "--steps", "300", cwd=tmp_path,
    )  # fmt: skip
    assert "circuit (gates oracle)" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "cartpole"], "unknown environment 'cartpole'"),
        (["--uncertainty", "12"], "not a power of two"),
        (["--gamma", "1.5"], "gamma must lie in (0, 1)"),
        (
            ["--hardware", "aer_noisy_manila.yaml", "--oracle", "gates", "--uncertainty", "8"],
            "uncertainty set too wide",
        ),
    ],
)
def test_bad_input_is_one_line(tmp_path, args: list[str], message: str) -> None:
    (tmp_path / "aer_noisy_manila.yaml").write_text(
        "substrate: quantum\nbackend: quantum.aer\noptions:\n  noise_model: fake_manila\n"
    )
    result = substrates("run", "qrim", *args, cwd=tmp_path, check=False)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_hardware_path_on_a_device_snapshot(tmp_path) -> None:
    result = substrates(
        "run", "qrim", "--env", "frozenlake4", "--uncertainty", "2",
        "--hardware", "ibm_fake_brisbane", cwd=tmp_path,
    )  # fmt: skip
    assert "exhaustive search: 2" in result.stdout
    folder = only_run_folder(tmp_path / "runs")
    jobs = json.loads((folder / "jobs.json").read_text())["jobs"]
    assert jobs and all(job["device"] == "fake_brisbane" for job in jobs)
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert summary["backend_shots"] == 1024 * summary["backend_circuits"] > 0
    assert summary["exact_minimum_rate"] >= 0.95
