"""`substrates sweep` as a user runs it: a local pool, a real Dask scheduler with two workers
on loopback (one killed mid-sweep), a killed driver resumed, failures retried on request,
IBM jobs collected instead of resubmitted, and bad input refused with nothing touched."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from .cli import substrates, wait_for
from .test_ibm_jobs import CRASH_AFTER_SUBMIT

GRID = """
parameters:
  reduce: [all, none, leaves, degree2]
  tolerance: [1.0e-12, 1.0e-13]
fixed:
  evidence: "6=1,7=1"
"""
ITEMS = 8


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def executions(out: Path) -> dict[str, int]:
    """How many times each item ran: one run folder per execution."""
    return {p.name: sum(q.is_dir() for q in p.iterdir()) for p in (out / "runs").iterdir()}


def results(out: Path) -> list[dict]:
    return pq.read_table(out / "results.parquet").to_pylist()


def assert_complete(out: Path, items: int = ITEMS) -> None:
    rows = results(out)
    assert len(rows) == items and len({r["item"] for r in rows}) == items
    assert all(r["differences.crn_original vs bp"] < 1e-8 for r in rows)


def sweep(tmp_path: Path, *args: str, check: bool = True):
    return substrates(
        "sweep", "crn-validate", "--grid", "grid.yaml", *args, cwd=tmp_path, check=check
    )


def test_local_pool_sweep_then_a_rerun_computes_nothing(tmp_path) -> None:
    write(tmp_path / "grid.yaml", GRID)
    first = sweep(tmp_path, "--out", "out", "--executor", "cluster_local")
    assert f"{ITEMS}/{ITEMS} items done (0 before this run, {ITEMS} executed" in first.stdout
    assert_complete(tmp_path / "out")
    assert {r["verdict"] for r in results(tmp_path / "out")} == {"valid"}
    assert f"verdicts: {ITEMS} valid, 0 not valid, 0 cannot tell" in first.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert len(manifest["done"]) == ITEMS and manifest["pending"] == 0
    again = sweep(tmp_path, "--out", "out")
    assert f"({ITEMS} before this run, 0 executed" in again.stdout
    assert set(executions(tmp_path / "out").values()) == {1}


def test_a_sweep_with_an_item_not_valid_exits_3_and_tables_each_verdict(tmp_path) -> None:
    grid = "parameters:\n  belief_tolerance: [1.0e-30, 1.0e-6]\nfixed: {samples: 0, starts: 0}\n"
    write(tmp_path / "grid.yaml", grid)
    result = sweep(tmp_path, "--out", "out", check=False)
    assert result.returncode == 3, result.stderr
    assert "verdicts: 1 valid, 1 not valid, 0 cannot tell" in result.stdout
    verdicts = {r["belief_tolerance"]: r["verdict"] for r in results(tmp_path / "out")}
    assert verdicts == {1e-30: "not valid", 1e-6: "valid"}


def test_failed_items_are_kept_and_retried_only_on_request(tmp_path) -> None:
    from substrates.datasets.crn.libdai_fg import write_fg
    from substrates.testing.crn import random_tree

    write_fg(random_tree(5, seed=2), tmp_path / "tree.fg")
    write(tmp_path / "later.fg", "1\n\n2\n0 1\n2 2\n")  # cut short: fails when it runs
    write(tmp_path / "grid.yaml", "parameters:\n  graph: [tree.fg, later.fg]\n")
    write(tmp_path / "one.yaml", "executor: local\noptions: {workers: 1}\n")
    first = sweep(tmp_path, "--out", "out", "--executor", "one.yaml", check=False)
    assert first.returncode == 1 and "1/2 items done" in first.stdout
    assert "failed" in first.stdout and "later.fg" in first.stdout
    (failure,) = (tmp_path / "out" / "failed").iterdir()
    assert json.loads(failure.read_text())["attempts"] == 1
    second = sweep(tmp_path, "--out", "out", "--executor", "one.yaml", check=False)
    assert "0 executed" in second.stdout and second.returncode == 1
    write_fg(random_tree(6, seed=3), tmp_path / "later.fg")
    third = sweep(tmp_path, "--out", "out", "--executor", "one.yaml", "--retry-failed")
    assert "2/2 items done (1 before this run, 1 executed" in third.stdout
    assert not list((tmp_path / "out" / "failed").iterdir())
    assert len(results(tmp_path / "out")) == 2


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _scheduler_address(scheduler_file: Path) -> str | None:
    """The address in dask's scheduler file, or None until the file is there and whole
    (the scheduler creates it before it writes it)."""
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        return None


@contextmanager
def dask_cluster(tmp_path: Path):
    """A real scheduler and two single-threaded workers on loopback; yields the executor
    config's path and the worker processes."""
    scheduler_file = tmp_path / "scheduler.json"
    scheduler = [
        "distributed.cli.dask_scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-dashboard",
        "--scheduler-file",
        str(scheduler_file),
    ]
    processes = [_start(scheduler, tmp_path)]
    try:
        wait_for(lambda: _scheduler_address(scheduler_file) is not None, 60, "the scheduler")
        address = _scheduler_address(scheduler_file)
        for name in ("w1", "w2"):
            processes.append(
                _start(
                    [
                        "distributed.cli.dask_worker",
                        address,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--name",
                        name,
                    ],
                    tmp_path,
                )
            )
        config = write(
            tmp_path / "cluster.yaml", f"executor: dask\noptions: {{address: '{address}'}}\n"
        )
        yield config, processes[1:]
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)


def test_dask_cluster_loses_a_worker_mid_sweep_and_loses_nothing(tmp_path) -> None:
    write(tmp_path / "grid.yaml", GRID)
    with dask_cluster(tmp_path) as (config, workers):
        driver = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "substrates",
                "sweep",
                "crn-validate",
                "--grid",
                "grid.yaml",
                "--out",
                "out",
                "--executor",
                str(config),
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        items = tmp_path / "out" / "items"
        wait_for(lambda: items.is_dir() and any(items.iterdir()), 240, "a first item")
        os.killpg(workers[0].pid, signal.SIGKILL)  # worker w1, mid-sweep
        assert len(list(items.iterdir())) < ITEMS
        stdout, stderr = driver.communicate(timeout=400)
        assert driver.returncode == 0, stderr
        assert f"{ITEMS}/{ITEMS} items done" in stdout
        assert_complete(tmp_path / "out")


@pytest.mark.parametrize(
    "executor",
    # dask's own kill-and-resume (a cluster losing a worker) stays in the default lane
    ["local", pytest.param("dask", marks=pytest.mark.science)],  # dask: 11–18 s in CI
)
def test_a_killed_driver_resumes_without_recomputing_finished_items(tmp_path, executor) -> None:
    write(tmp_path / "grid.yaml", GRID)
    with ExitStack() as stack:
        if executor == "dask":
            config, _ = stack.enter_context(dask_cluster(tmp_path))
        else:
            config = write(tmp_path / "one.yaml", "executor: local\noptions: {workers: 1}\n")
        args = ["--out", "out", "--executor", str(config)]
        driver = _start(
            ["substrates", "sweep", "crn-validate", "--grid", "grid.yaml", *args], tmp_path
        )
        items = tmp_path / "out" / "items"
        # Count finished items only: a fragment being written sits there under a temporary
        # name until it is renamed into place.
        wait_for(lambda: items.is_dir() and len(list(items.glob("*.parquet"))) >= 3, 240, "3 items")
        finished = {p.stem for p in items.glob("*.parquet")}
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
        assert 3 <= len(finished) < ITEMS
        resumed = sweep(tmp_path, *args)
    counts = re.search(
        r"\((\d+) before this run, (\d+) executed, (\d+) collected from "
        r"recorded jobs, (\d+) from completed runs\)",
        resumed.stdout,
    )
    before, executed, collected, reused = map(int, counts.groups())
    assert before >= len(finished)  # items running when the driver died may have finished
    assert before + executed + reused == ITEMS and collected == 0
    counts = executions(tmp_path / "out")
    assert all(counts[item] == 1 for item in finished)
    assert_complete(tmp_path / "out")


def test_ctrl_c_keeps_what_finished_and_says_how_to_resume(tmp_path) -> None:
    write(tmp_path / "grid.yaml", GRID)
    write(tmp_path / "one.yaml", "executor: local\noptions: {workers: 1}\n")
    # A shell that starts a job in the background sets SIGINT to "ignore" for it, and the
    # driver would inherit that (Python then installs no KeyboardInterrupt handler): the
    # test restores the default so that it means the same wherever pytest was started.
    driver = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "substrates",
            "sweep",
            "crn-validate",
            "--grid",
            "grid.yaml",
            "--out",
            "out",
            "--executor",
            "one.yaml",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    items = tmp_path / "out" / "items"
    wait_for(lambda: items.is_dir() and any(items.iterdir()), 240, "a first item")
    driver.send_signal(signal.SIGINT)
    _, stderr = driver.communicate(timeout=120)
    assert driver.returncode == 130 and "rerun the same command to resume" in stderr
    kept = len(list(items.iterdir()))
    resumed = sweep(tmp_path, "--out", "out", "--executor", "one.yaml")
    assert f"({kept} before this run" in resumed.stdout
    assert_complete(tmp_path / "out")


def test_a_resumed_sweep_collects_submitted_ibm_jobs(tmp_path, local_job_store) -> None:
    write(tmp_path / "grid.yaml", "seeds: [4]\nfixed: {hardware: ibm_fake_brisbane, shots: 3000}\n")
    write(tmp_path / "one.yaml", "executor: local\noptions: {workers: 1}\n")
    args = ["sweep", "sample", "--grid", "grid.yaml", "--out", "out", "--executor", "one.yaml"]
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_AFTER_SUBMIT, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert crashed.returncode == 17, crashed.stderr
    stored = sorted(os.listdir(local_job_store))
    assert len(stored) == 1
    resumed = substrates(*args, cwd=tmp_path)
    assert "1 collected from recorded jobs" in resumed.stdout
    assert sorted(os.listdir(local_job_store)) == stored  # nothing resubmitted
    rows = results(tmp_path / "out")
    assert sum(r["count"] for r in rows) == 3000 and rows[0]["bitstring"] == "101"
    assert {r["seed"] for r in rows} == {4}


CRASH_AFTER_THREE_JOBS = """
import os, sys
from substrates.backends.quantum import ibm_fake
keep = ibm_fake.IBMFakeBackend._retain
kept = []
def retain(self, job):  # the job is stored (as IBM would hold it); then the driver dies
    keep(self, job)
    kept.append(job)
    if len(kept) == 3:
        os._exit(17)
ibm_fake.IBMFakeBackend._retain = retain
from substrates.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.science  # 46 s: the default lane keeps its 10-minute budget
def test_a_resumed_qrim_sweep_collects_its_earlier_jobs_in_order(tmp_path, local_job_store) -> None:
    write(tmp_path / "grid.yaml", "fixed: {hardware: ibm_fake_brisbane, uncertainty: 2}\n")
    write(tmp_path / "one.yaml", "executor: local\noptions: {workers: 1}\n")
    args = ["sweep", "qrim", "--grid", "grid.yaml", "--out", "out", "--executor", "one.yaml"]
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_AFTER_THREE_JOBS, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert crashed.returncode == 17, crashed.stderr
    (first,) = [p for p in (tmp_path / "out" / "runs").glob("*/*") if p.is_dir()]
    earlier = [j["job_id"] for j in json.loads((first / "jobs.json").read_text())["jobs"]]
    assert len(earlier) == 3 and len(os.listdir(local_job_store)) == 3
    resumed = substrates(*args, cwd=tmp_path)
    assert "1 collected from recorded jobs" in resumed.stdout
    (row,) = results(tmp_path / "out")
    jobs = json.loads((tmp_path / "out" / row["run_folder"] / "jobs.json").read_text())["jobs"]
    assert [j["job_id"] for j in jobs[:3]] == earlier
    assert [bool(j.get("replayed")) for j in jobs] == [True] * 3 + [False] * (len(jobs) - 3)
    assert len(os.listdir(local_job_store)) == len(jobs)  # the first three not resubmitted
    assert row["exact_minimum_rate"] >= 0.95


FAR = "executor: dask\noptions: {address: 'tcp://127.0.0.1:9', connect_timeout_s: 1}\n"


@pytest.mark.parametrize(
    ("method", "grid", "executor", "message"),
    [
        (
            "crn-validate",
            "parameters: {reduction: [all]}\n",
            "cluster_local",
            "'reduction' is not an option of crn-validate; options: allow_growth, approximation",
        ),
        ("qrim", "parameters: {outer: [sideways]}\n", "cluster_local", "invalid choice"),
        (
            "crn-validate",
            "parameters: {reduce: [all]}\n",
            "far.yaml",
            "cannot reach the Dask scheduler at tcp://127.0.0.1:9",
        ),
        ("crn-validate", "parameters: {reduce: []}\n", "cluster_local", "an empty list"),
        ("crn-validate", "seeds: 2\n", "cluster_local", "'seed' is not an option"),
        ("crn-validate", "parameters: {reduce: [all]}\n", "crn_ode", "field 'executor': missing"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, method, grid, executor, message) -> None:
    write(tmp_path / "grid.yaml", grid)
    write(tmp_path / "far.yaml", FAR)
    result = substrates(
        "sweep",
        method,
        "--grid",
        "grid.yaml",
        "--out",
        "out",
        "--executor",
        executor,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2 and message in result.stderr
    assert not (tmp_path / "out").exists()


def test_an_output_folder_of_another_sweep_is_left_untouched(tmp_path) -> None:
    write(tmp_path / "grid.yaml", "parameters: {reduce: [all, none]}\n")
    sweep(tmp_path, "--out", "out", "--executor", "cluster_local")
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    write(tmp_path / "grid.yaml", "parameters: {reduce: [leaves]}\n")
    result = sweep(tmp_path, "--out", "out", check=False)
    assert result.returncode == 2 and "holds a different sweep" in result.stderr
    after = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert after == before
    (tmp_path / "other").mkdir()
    write(tmp_path / "other" / "notes.txt", "mine")
    result = sweep(tmp_path, "--out", "other", check=False)
    assert result.returncode == 2 and "holds no sweep" in result.stderr
