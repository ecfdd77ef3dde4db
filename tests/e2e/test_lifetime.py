"""Runs that tell the truth when they are stopped, and sweeps with one driver: SIGTERM and
Ctrl-C mark a run interrupted; a SIGKILLed run reads dead in `substrates runs`; a second
driver of the same sweep is refused while the first lives and takes over when it is dead;
a local pool that loses a worker replaces it and records no failure."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from substrates.adapters.runs.folder import RunFolder

from .cli import substrates, wait_for


def _default_sigint() -> None:
    """A shell without job control starts background jobs with SIGINT ignored, and Python
    keeps an ignored SIGINT: give the run the default, as a terminal would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "substrates", *args],
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )


def _running_record(runs: Path) -> tuple[Path, dict]:
    wait_for(lambda: runs.is_dir() and any(runs.glob("*/provenance.json")), 120, "a run folder")
    (path,) = runs.glob("*/provenance.json")
    return path.parent, json.loads(path.read_text())


LONG_QRIM = ["run", "qrim", "--uncertainty", "64", "--outer", "q_learning", "--steps", "20000"]


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_run_says_interrupted(tmp_path, sent, code) -> None:
    run = _start(LONG_QRIM, tmp_path)
    folder, record = _running_record(tmp_path / "runs")
    assert record["status"] == "running" and record["pid"] == run.pid
    time.sleep(3.0)  # the folder is made before the first step: give Q-learning time to start
    run.send_signal(sent)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == code, stderr
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "interrupted" and "finished_at" in record
    assert int(record["completed"]["qrim"]) > 0  # Q-learning steps done before the signal
    listed = substrates("runs", "--json", cwd=tmp_path)
    assert [r["status"] for r in json.loads(listed.stdout)] == ["interrupted"]


def test_a_killed_run_is_listed_as_dead_never_running(tmp_path) -> None:
    run = _start(LONG_QRIM, tmp_path)
    _running_record(tmp_path / "runs")
    alive = json.loads(substrates("runs", "--json", cwd=tmp_path).stdout)
    assert [r["status"] for r in alive] == ["running"]
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    dead = json.loads(substrates("runs", "--json", cwd=tmp_path).stdout)
    assert [(r["method"], r["status"]) for r in dead] == [("qrim", "dead")]
    assert "dead" in substrates("runs", cwd=tmp_path).stdout


def test_run_folders_never_collide(tmp_path) -> None:
    paths = {RunFolder.create(tmp_path, "sample").path for _ in range(3000)}
    assert len(paths) == 3000


GRID = "parameters:\n  uncertainty: [32]\nseeds: 6\n"  # about 10 s per item on two cores


def _pool_workers(driver: int) -> list[int]:
    """The local pool's worker processes of a driver (its children running spawn_main)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if parent == driver and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def two_worker_sweep(tmp_path) -> list[str]:
    """A QRIM sweep of six items on a local pool of two workers: its command's arguments."""
    (tmp_path / "grid.yaml").write_text(GRID)
    (tmp_path / "two.yaml").write_text("executor: local\noptions: {workers: 2}\n")
    return ["sweep", "qrim", "--grid", "grid.yaml", "--out", "out", "--executor", "two.yaml"]


def test_one_driver_per_sweep_and_a_dead_drivers_lock_is_taken_over(
    tmp_path, two_worker_sweep
) -> None:
    args = two_worker_sweep
    first = _start(args, tmp_path)
    wait_for((tmp_path / "out" / "driver.lock").is_file, 120, "the first driver's lock")
    second = substrates(*args, cwd=tmp_path, check=False)
    assert second.returncode == 2 and "is being swept by pid" in second.stderr
    wait_for(lambda: len(_pool_workers(first.pid)) == 2, 120, "the pool's workers")
    workers = _pool_workers(first.pid)
    os.kill(first.pid, signal.SIGKILL)  # the driver alone: its pool must stop by itself
    first.wait()
    wait_for(lambda: not any(map(_alive, workers)), 30, "the dead driver's workers to stop")
    resumed = substrates(*args, cwd=tmp_path)
    assert "6/6 items done" in resumed.stdout and "0 failed" in resumed.stdout


def test_a_pool_that_loses_a_worker_replaces_it_and_fails_nothing(
    tmp_path, two_worker_sweep
) -> None:
    driver = _start(two_worker_sweep, tmp_path)
    wait_for(lambda: len(_pool_workers(driver.pid)) == 2, 120, "the pool's workers")
    started = tmp_path / "out" / "started"
    wait_for(lambda: started.is_dir() and any(started.iterdir()), 120, "a started item")
    os.kill(_pool_workers(driver.pid)[0], signal.SIGKILL)
    stdout, stderr = driver.communicate(timeout=600)
    assert driver.returncode == 0, stderr
    assert "6/6 items done" in stdout and "0 failed" in stdout


def test_a_finished_run_longer_than_a_heartbeat_leaves_no_heartbeat(tmp_path, monkeypatch) -> None:
    """The heartbeat marks a run alive while it runs; once it has ended, the folder holds
    only what the run wrote."""
    import socket

    from substrates.adapters.runs import lifetime

    monkeypatch.setattr(lifetime, "HEARTBEAT_S", 0.05)
    with lifetime.supervised(tmp_path):
        folder = RunFolder.create(tmp_path, "demo")
        record = {"status": "running", "pid": os.getpid(), "host": socket.gethostname()}
        folder.write_json("provenance.json", record)
        wait_for(lambda: (folder.path / lifetime.HEARTBEAT_FILE).exists(), 10, "a heartbeat")
        folder.write_json("provenance.json", {**record, "status": "complete"})
    assert {p.name for p in folder.path.iterdir()} == {"provenance.json"}
