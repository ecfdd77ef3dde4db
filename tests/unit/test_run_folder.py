"""Run folders write atomically: a failed write leaves the old file, no partial file."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

from substrates.adapters.runs.folder import RunFolder
from substrates.errors import SubstratesError


def test_create_makes_a_fresh_folder(tmp_path) -> None:
    first = RunFolder.create(tmp_path, "sample")
    second = RunFolder.create(tmp_path, "sample")
    assert first.path != second.path and first.path.name.startswith("sample-")


def test_failed_json_write_keeps_the_previous_file(tmp_path) -> None:
    folder = RunFolder.create(tmp_path, "m")
    folder.write_json("provenance.json", {"status": "running"})

    class Unserialisable:
        def __repr__(self) -> str:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        folder.write_json("provenance.json", {"status": "complete", "bad": Unserialisable()})
    assert folder.read_json("provenance.json") == {"status": "running"}
    assert sorted(os.listdir(folder.path)) == ["provenance.json"]


def test_table_round_trip_and_permissions(tmp_path) -> None:
    folder = RunFolder.create(tmp_path, "m")
    table = pa.table({"a": [1, 2]})
    folder.write_table("results.parquet", table)
    assert folder.read_table("results.parquet").equals(table)
    mode = os.stat(folder.file("results.parquet")).st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_existing_requires_provenance(tmp_path) -> None:
    with pytest.raises(SubstratesError, match="not a run folder"):
        RunFolder.existing(tmp_path)
    (tmp_path / "provenance.json").write_text(json.dumps({"status": "running"}))
    assert RunFolder.existing(tmp_path).path == tmp_path


def test_a_job_log_replays_earlier_jobs_while_the_requests_repeat(tmp_path) -> None:
    from substrates.adapters.runs.journal import JobLog

    earlier = [
        {"job_id": "a", "shots": 10, "seed": 1},
        {"job_id": "b", "shots": 10, "seed": 2},
        {"job_id": "c", "shots": 10, "seed": 3},
    ]
    log = JobLog(RunFolder.create(tmp_path, "test"), replay=earlier)
    assert log.replay({"shots": 10, "seed": 1}) == "a"
    assert log.replay({"shots": 10, "seed": 2}) == "b"
    assert log.replay({"shots": 20, "seed": 3}) is None  # diverged: submit from here on
    assert log.replay({"shots": 10, "seed": 3}) is None
