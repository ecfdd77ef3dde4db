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
    assert "robust (s,a-rectangular) return" in out and "guaranteed to win" in out
    assert "worst-case return over single members (no such guarantee): QRIM policy" in out
    assert "exhaustive search: 16 evaluations" in out and "classical evaluations" in out
    assert "simulated as built (no device to map it to)" in out  # Aer compiles nothing
    folder = only_run_folder(tmp_path / "runs")
    assert {p.name for p in folder.iterdir()} == {
        "results.parquet",
        "policy.parquet",
        "robustness.parquet",
        "provenance.json",
        "qrim.png",
        "searches.parquet",
        "summary.json",
    }
    _assert_searches_replay(folder)
    minimizations = pq.read_table(folder / "results.parquet")
    assert {"oracle_queries", "classical_queries", "circuits", "true_min"} <= set(
        minimizations.column_names
    )
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert summary["exact_minimum_rate"] >= 0.95
    assert summary["policy_agreement_with_exhaustive"] >= 0.99
    assert summary["worst_case_return_robust"] >= summary["worst_case_return_nominal"]
    assert summary["rectangular_return_robust"] >= summary["rectangular_return_nominal"]
    assert summary["rectangular_return_robust"] <= summary["worst_case_return_robust"]
    robustness = pq.read_table(folder / "robustness.parquet").to_pylist()
    assert len(robustness) == 16
    assert min(r["return_qrim_policy"] for r in robustness) == pytest.approx(
        summary["worst_case_return_robust"]
    )


def _assert_searches_replay(folder) -> None:
    """Every search in the run folder's trace, replayed from the trace alone (start, draws,
    measured indices and the values queried), ends where results.parquet says it did."""
    from substrates.models.qrim.search import Step, replay_search

    members = json.loads((folder / "provenance.json").read_text())["parameters"]["uncertainty"]
    minimizations = pq.read_table(folder / "results.parquet").to_pylist()
    searches = pq.read_table(folder / "searches.parquet").to_pandas()
    assert searches["doubt"].between(0, 1).all()
    for row, steps in searches.groupby("minimization"):
        trace = [
            Step(
                int(s.threshold_index),
                int(s.iterations),
                int(s.measured),
                float(s.value),
                float(s.doubt),
            )
            for s in steps.itertuples()
        ]
        first = steps.iloc[0]
        again = replay_search(
            members, None, int(first.start), trace, start_value=float(first.start_value)
        )
        assert again.index == minimizations[row]["found"]
        assert again.oracle_queries == minimizations[row]["oracle_queries"]
    assert searches["minimization"].nunique() == len(minimizations)


@pytest.mark.parametrize("config", ["aer_mps", "pennylane_lightning"])
def test_same_command_on_other_backends(tmp_path, config: str) -> None:
    result = substrates(
        "run",
        "qrim",
        "--hardware",
        config,
        "--env",
        "inventory",
        "--uncertainty",
        "8",
        cwd=tmp_path,
    )
    assert "exhaustive search: 8" in result.stdout


def test_q_learning_with_the_gate_oracle(tmp_path) -> None:
    result = substrates(
        "run",
        "qrim",
        "--outer",
        "q_learning",
        "--oracle",
        "gates",
        "--env",
        "inventory",
        "--uncertainty",
        "4",
        "--steps",
        "300",
        cwd=tmp_path,
    )
    assert "circuit (gates oracle)" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "cartpole"], "--env: invalid choice: 'cartpole'"),
        (["--uncertainty", "12"], "not a power of two"),
        (["--gamma", "1.5"], "--gamma: Input should be less than 1"),
        (
            ["--hardware", "aer_noisy_manila.yaml", "--oracle", "gates", "--uncertainty", "8"],
            "--uncertainty: too wide for",
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


@pytest.mark.science  # 45 s: the default lane keeps its 10-minute budget
def test_hardware_path_on_a_device_snapshot(tmp_path) -> None:
    result = substrates(
        "run",
        "qrim",
        "--env",
        "frozenlake4",
        "--uncertainty",
        "2",
        "--hardware",
        "ibm_fake_brisbane",
        cwd=tmp_path,
    )
    assert "exhaustive search: 2" in result.stdout
    assert "one Grover iteration mapped to the device: depth" in result.stdout
    folder = only_run_folder(tmp_path / "runs")
    jobs = json.loads((folder / "jobs.json").read_text())["jobs"]
    assert jobs and all(job["device"] == "fake_brisbane" for job in jobs)
    (batch,) = {job["session_id"] for job in jobs}  # one Batch held for the whole run
    assert batch.startswith("local-")
    assert all(job["usage_s"] == 0.0 and "execution_spans" in job for job in jobs)
    record = json.loads((folder / "provenance.json").read_text())
    summary = record["summary"]
    assert summary["backend_shots"] == 1024 * summary["backend_circuits"] > 0
    assert summary["exact_minimum_rate"] >= 0.95
    assert record["expected_s"] == 40.0  # under a minute: kept, not said
    assert "expected:" not in result.stderr
