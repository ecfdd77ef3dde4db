"""`substrates run event-layers` as a user runs it: held-out simulated scenes scored against
their ground truth, the same code on an event file written by expelliarmus, bad input."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from .cli import only_run_folder, substrates


def test_simulated_scenes_are_scored_against_their_truth(tmp_path) -> None:
    result = substrates("run", "event-layers", "--scenes", "2", cwd=tmp_path)
    assert "events assigned to their true layer: " in result.stdout and " %\n" in result.stdout
    folder = only_run_folder(tmp_path / "runs")
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    assert [r["scene"] for r in rows] == [100, 101]
    for row in rows:
        assert 0.5 < row["assignment_accuracy"] <= 1 and row["events"] > 1000
        assert row["psnr_removed_true_motion_db"] > row["psnr_input_db"] + 3
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert summary["scenes"] == 2 and (folder / "layers.png").stat().st_size > 10_000


def test_homography_scenes_on_the_torch_tier_on_the_cpu(tmp_path) -> None:
    (tmp_path / "torch_cpu.yaml").write_text(
        "substrate: events\nbackend: events.sim_gpu\noptions: {device: cpu}\n"
    )
    substrates(
        "run",
        "event-layers",
        "--source",
        "torch_cpu.yaml",
        "--scenes",
        "1",
        "--homography",
        "--motion",
        "affine",
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "runs")
    record = json.loads((folder / "provenance.json").read_text())
    assert record["parameters"]["homography"] and record["backend"]["backend"] == "events.sim_gpu"
    assert record["parameters"]["motion"] == "affine"
    (row,) = pq.read_table(folder / "results.parquet").to_pylist()
    assert row["events"] > 1000 and row["psnr_removed_true_motion_db"] > row["psnr_input_db"]
    assert any(row[f"dvx_dx_per_s_{tag}"] != 0 for tag in "TR")  # gradients were fitted
    assert row["flow_error_T_px_s"] < 30


def test_the_same_code_runs_on_an_event_file(tmp_path) -> None:
    expelliarmus = pytest.importorskip("expelliarmus")
    from substrates.backends.registry import create_backend
    from substrates.models.events.scenes import ReflectionScene

    rendered = ReflectionScene.random(7).render()
    events = create_backend("events.sim", {"seed": 1}).simulate(rendered.frames, rendered.times)
    theirs = np.empty(len(events), [("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "u1")])
    for name in "txyp":
        theirs[name] = events.array[name]
    expelliarmus.Wizard(encoding="evt2").save(tmp_path / "scene.raw", theirs)
    result = substrates(
        "run",
        "event-layers",
        "--source",
        "events_file",
        "--events",
        "scene.raw",
        "--window-ms",
        "150",
        cwd=tmp_path,
    )
    assert "events assigned to layer 0: " in result.stdout
    folder = only_run_folder(tmp_path / "runs")
    (row,) = pq.read_table(folder / "results.parquet").to_pylist()
    assert row["layer_0_events"] + row["layer_1_events"] == row["events"] > 1000
    read = json.loads((folder / "provenance.json").read_text())["file"]
    assert read["encoding"] == "evt2" and read["words_without_cd_events"] == 0
    # expelliarmus writes no geometry but a Gen3 camera's system ID: 640 × 480, as OpenEB reads it
    assert read["sensor_size_from"] == "system_ID"


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (("--events", "cut.raw"), b"", "--events: needs a hardware config whose backend has"),
        (("--source", "events_file", "--events", "none.raw"), None, "no such file"),
        (("--source", "crn_ode"), None, "event-layers needs an events backend"),
        (
            ("--source", "events_file", "--events", "cut.raw"),
            b"% evt 3.0\n\x00\x00\x01",
            "cut word stream",
        ),
        (("--scenes", "0"), None, "--scenes: Input should be greater than or equal to 1"),
        (("--window-ms", "inf"), None, "--window-ms: Input should be a finite number"),
        (("--motion", "projective"), None, "invalid choice: 'projective'"),
    ],
)
def test_bad_input_exits_2(tmp_path, args, content, message) -> None:
    if content is not None:
        (tmp_path / "cut.raw").write_bytes(content)
    result = substrates("run", "event-layers", *args, cwd=tmp_path, check=False)
    assert result.returncode == 2 and message in result.stderr
    assert not (tmp_path / "runs").exists()


def test_start_ms_seeks_into_a_recording(tmp_path) -> None:
    """--start-ms decouples the span that starts there: the same events as cut from the
    whole file, found through the stream's index; a simulator source refuses it."""
    from substrates.backends.registry import create_backend
    from substrates.datasets.events.files import read_events, write_events
    from substrates.models.events.scenes import ReflectionScene

    rendered = ReflectionScene.random(8).render()
    events = create_backend("events.sim", {"seed": 1}).simulate(rendered.frames, rendered.times)
    write_events(events, tmp_path / "scene.raw", "evt3")
    substrates(
        "run",
        "event-layers",
        "--source",
        "events_file",
        "--events",
        "scene.raw",
        "--window-ms",
        "80",
        "--start-ms",
        "60",
        cwd=tmp_path,
    )
    (row,) = pq.read_table(only_run_folder(tmp_path / "runs") / "results.parquet").to_pylist()
    t = read_events(tmp_path / "scene.raw")[0].array["t"]
    assert row["events"] == int(np.sum((t >= t[0] + 60_000) & (t < t[0] + 140_000))) > 1000
    refused = substrates("run", "event-layers", "--start-ms", "5", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "--start-ms: is for recordings" in refused.stderr


def test_a_sensor_beyond_the_image_budget_is_refused_before_allocation(tmp_path) -> None:
    """A small EVT 3.0 file may declare an 8192 × 8192 sensor (the most the format allows):
    its images would take 5 GB; the budget, named in the message, refuses it."""
    from substrates.backends.registry import create_backend
    from substrates.datasets.events.events import Events
    from substrates.datasets.events.files import write_events
    from substrates.models.events.scenes import ReflectionScene

    rendered = ReflectionScene.random(9).render()
    events = create_backend("events.sim", {"seed": 1}).simulate(rendered.frames, rendered.times)
    write_events(Events(events.array, 8192, 8192), tmp_path / "wide.raw", "evt3")
    args = ("run", "event-layers", "--source", "events_file", "--events", "wide.raw")
    result = substrates(*args, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "sensor 8192×8192 = 67,108,864 pixels, more than the 8,388,608" in line
    assert "budget --max-sensor-pixels" in line and "wide.raw" in line
    assert not (tmp_path / "runs").exists()  # refused before the run folder
