"""`substrates run hh-fit` as a user runs it: a simulated session carrying what amplifiers
add (DC offsets, drift, mains, stimulation artefacts clipped at the amplifier's range),
written as NWB and fitted from that file, scored against its hidden cell, and the same
code on that NWB file through the mea_nwb config (science lane: one fit per path family);
the readers hh-fit offers for that file (its own table, a BIDS sidecar, a Litke dataset)
giving the fit the same observations; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from substrates.adapters.methods import get_method
from substrates.adapters.methods.summary import undeclared

from .cli import only_run_folder, substrates

pytest.importorskip("jaxley")
pytest.importorskip("sbi")
SESSION = {
    "spontaneous_s": 2.0,
    "trials": 4,
    "stim_electrodes": 4,
    "seed": 5,
    "offset_uv": 100,
    "drift_uv": 50,
    "line_uv": 20,
    "artefact_uv_per_ua": 100,
    "saturation_uv": 1000,
}
"""A short simulated session with everything amplifiers add (mea.jaxley options)."""


def _session_yaml(folder: Path) -> Path:
    path = folder / "session.yaml"
    config = {"substrate": "mea", "backend": "mea.jaxley", "options": SESSION}
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture(scope="module")
def session_nwb(mea_session, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SESSION simulated once and written as NWB, as hh-fit writes a simulated session."""
    from substrates.datasets.mea.nwb import write_nwb

    path = tmp_path_factory.mktemp("session") / "cell0.nwb"
    write_nwb(mea_session(**SESSION).recording(), path, "simulated by mea.jaxley")
    return path


def _with_x_y_columns(path: Path, folder: Path) -> Path:
    """A copy of an NWB file whose electrodes table names its positions by NWB's standard
    x, y columns (µm) instead of rel_x, rel_y, as files of other writers do."""
    import shutil

    import h5py

    copy = folder / "x_y.nwb"
    shutil.copy(path, copy)
    with h5py.File(copy, "a") as handle:
        table = handle["general/extracellular_ephys/electrodes"]
        for axis in "xy":
            table.move(f"rel_{axis}", axis)
        names = [str(n.decode() if isinstance(n, bytes) else n) for n in table.attrs["colnames"]]
        table.attrs["colnames"] = [n.removeprefix("rel_") for n in names]
    return copy


def test_every_reader_gives_the_fit_the_same_observations(session_nwb, tmp_path) -> None:
    """The session's NWB file as hh-fit reads it three ways: with the stimulation table
    inside it (mea_nwb), with the same pulses from a BIDS events.tsv written by pandas (an
    unrelated event among its rows), and as a Litke multi-file dataset built from the
    published byte layout (12-bit samples, the pulses on its TTL line, a protocol table
    beside it), and as a MaxWell MaxOne file built from its layout (unsigned samples
    in the rows its mapping routes, the pulses in its bits table, the same protocol
    table). Each gives the same pulses and the same observation to fit: spikes, patterns
    split alike with the same responses, the same thresholds (the Litke and MaxWell files
    within what their quantisation moves)."""
    from substrates.adapters.conversions.mea_preprocessing import DEFAULT_PREPROCESSING
    from substrates.adapters.runs.hh_fit_inputs import observed, preprocessing_steps, recorded
    from substrates.backends.registry import create_backend

    nwb = create_backend("mea.nwb", {"path": str(session_nwb)})
    _events_tsv_from_pynwb(session_nwb, tmp_path / "events.tsv")
    gain_uv = _litke_dataset_from_pynwb(
        session_nwb, tmp_path / "data000", tmp_path / "map.csv", tmp_path / "protocol.tsv"
    )
    litke = create_backend(
        "mea.litke",
        {
            "path": str(tmp_path / "data000"),
            "electrode_map": str(tmp_path / "map.csv"),
            "gain_uv": gain_uv,
        },
    )
    xy = create_backend("mea.nwb", {"path": str(_with_x_y_columns(session_nwb, tmp_path))})
    _maxone_from_pynwb(session_nwb, tmp_path / "session.raw.h5")
    maxwell = create_backend("mea.maxwell", {"path": str(tmp_path / "session.raw.h5")})
    read = {
        "table": recorded(nwb, None, None),
        "sidecar": recorded(nwb, str(tmp_path / "events.tsv"), None),
        "litke": recorded(litke, str(tmp_path / "protocol.tsv"), "ttl"),
        "x_y": recorded(xy, None, None),
        "maxwell": recorded(maxwell, str(tmp_path / "protocol.tsv"), "ttl"),
    }
    assert [skipped for _, skipped in read.values()] == [None, 1, 0, None, 0]
    reference = read["table"][0]
    model = create_backend("mea.jaxley", {}).cell_model(reference.positions_um)
    seen = {}
    for name, (recording, _) in read.items():
        stimulation = recording.stimulation
        assert np.allclose(stimulation.time_s, reference.stimulation.time_s, atol=1e-4), name
        assert stimulation.shape == reference.stimulation.shape, name
        assert [stimulation.currents(k) for k in range(len(stimulation))] == [
            reference.stimulation.currents(k) for k in range(len(stimulation))
        ], name
        steps = preprocessing_steps(DEFAULT_PREPROCESSING, recording.sampling_hz)
        seen[name] = observed(recording, model, 0, steps, name, artefacts="remove")
    assert np.allclose(read["litke"][0].get_traces(), reference.get_traces(), atol=gain_uv / 2)
    mid_uv = MAXONE_MID * MAXONE_LSB_V * 1e6  # the unsigned samples' mid-code
    maxone = read["maxwell"][0].get_traces() - mid_uv
    assert np.allclose(maxone, reference.get_traces(), atol=MAXONE_LSB_V * 1e6 / 2 + 1e-3)
    for name, found in seen.items():
        expected = seen["table"]
        assert [r.pattern for r in found.held_out] == [r.pattern for r in expected.held_out]
        assert [r.pattern for r in found.fitting] == [r.pattern for r in expected.fitting]
        assert found.channel == expected.channel
        if name in ("sidecar", "x_y"):  # the same samples: the same observation, exactly
            assert found.spikes == expected.spikes
            assert [r.spikes for r in found.held_out] == [r.spikes for r in expected.held_out]
            assert found.thresholds_ua == expected.thresholds_ua
            assert np.array_equal(found.image, expected.image)
        else:  # 12-bit samples: the same spikes, at most a trial's call moved per pattern
            assert abs(found.spikes - expected.spikes) <= 1
            moved = [
                abs(a.spikes - b.spikes)
                for a, b in zip(
                    found.held_out + found.fitting,
                    expected.held_out + expected.fitting,
                    strict=True,
                )
            ]
            assert max(moved) <= 1 and sum(moved) <= 0.02 * len(moved) * 4, moved
            assert np.allclose(found.image, expected.image, atol=gain_uv)


@pytest.mark.science
def test_simulated_session_then_its_nwb_file(tmp_path) -> None:
    _session_yaml(tmp_path)
    result = substrates(
        "run",
        "hh-fit",
        "--source",
        "session.yaml",
        "--simulations",
        "200",
        "--out",
        "sim",
        cwd=tmp_path,
    )
    assert "held-out patterns predicted right: " in result.stdout and " %" in result.stdout
    assert (  # said as it starts: 30 s + 200 × 0.5 s
        "expected: about 2 min 10 s on two cores: 200 NPE simulations of the cell" in result.stderr
    )
    folder = only_run_folder(tmp_path / "sim")
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    parameters = [r for r in rows if r["kind"] == "parameter"]
    patterns = [r for r in rows if r["kind"] == "pattern"]
    assert len(parameters) == 8 and all(r["truth"] is not None for r in parameters)
    held = [r for r in patterns if r["set"] == "held-out"]
    assert len(held) > 20 and np.mean([r["correct"] for r in held]) >= 0.85
    assert np.mean([r["correct_vs_truth"] for r in held]) >= 0.85  # the simulator's record
    # every candidate's score, held-out accuracy and error beside the chosen one's
    candidates = {r["name"]: r for r in rows if r["kind"] == "candidate"}
    assert set(candidates) == {"npe", "refined", "calibrated"}
    chosen = min(candidates.values(), key=lambda r: r["score"])
    assert chosen["chosen"] == chosen["name"] == parameters[0]["chosen"]
    for name, row in candidates.items():
        assert row["error_prior_fraction"] >= 0
        right = np.mean([r[f"predicted_{name}"] == (r["observed_probability"] > 0.5) for r in held])
        assert row["held_out_accuracy"] == pytest.approx(right)
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and record["summary"]["cells"] == 1
    assert undeclared(record["summary"], get_method("hh-fit").summary) == []
    assert record["parameters"]["preprocess"] == "bandpass:300-6000,cmr"
    summary = record["summary"]
    assert record["parameters"]["artefacts"] == "remove"
    assert summary["artefact_peak_uv"] > 300 and 0 < summary["artefact_saturated_fraction"] < 0.2
    assert 0 <= summary["mean_held_out_accuracy_majority"] <= 1
    assert 0 <= summary["mean_held_out_accuracy_threshold_baseline"] <= 1
    assert [s["name"] for s in record["preprocessing"]["pipeline"]] == [
        "bandpass_filter",
        "common_reference",
    ]
    assert (folder / "hh_fit.png").stat().st_size > 10_000 and (folder / "cell0.nwb").is_file()

    # the file it wrote, fitted as a recording (the BIDS sidecar and Litke readers give
    # this fit the same observations: test_every_reader_gives_the_fit_the_same_observations)
    again = substrates(
        "run",
        "hh-fit",
        "--source",
        "mea_nwb",
        "--recording",
        str(folder / "cell0.nwb"),
        "--simulations",
        "200",
        "--out",
        "file",
        cwd=tmp_path,
    )
    rows = pq.read_table(only_run_folder(tmp_path / "file") / "results.parquet").to_pylist()
    assert all(r["truth"] is None for r in rows if r["kind"] == "parameter")
    assert "mean_error_fitted_prior_fraction" not in again.stdout
    file_held = [r["correct"] for r in rows if r.get("set") == "held-out"]
    assert len(file_held) > 20 and np.mean(file_held) >= 0.85


@pytest.mark.science
def test_a_maxone_file_runs_hh_fit(session_nwb, tmp_path) -> None:
    """The session as a MaxOne file built from its layout, with its protocol table and
    the pulse times from its bits table, fitted through mea_maxwell to held-out
    predictions."""
    _maxone_from_pynwb(session_nwb, tmp_path / "session.raw.h5")
    _litke_dataset_from_pynwb(
        session_nwb, tmp_path / "data000", tmp_path / "map.csv", tmp_path / "protocol.tsv"
    )
    substrates(
        "run",
        "hh-fit",
        "--source",
        "mea_maxwell",
        "--recording",
        "session.raw.h5",
        "--stimulation",
        "protocol.tsv",
        "--stimulation-times",
        "ttl",
        "--simulations",
        "50",
        "--out",
        "maxwell",
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "maxwell")
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    held = [r["correct"] for r in rows if r.get("set") == "held-out"]
    assert len(held) > 20 and np.mean(held) >= 0.7, np.mean(held)
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and record["parameters"]["stimulation_times"] == "ttl"


CROWDED = (
    "substrate: mea\nbackend: mea.jaxley\n"
    "options: {spontaneous_s: 10.0, trials: 4, stim_electrodes: 3, pair_electrodes: 2,\n"
    "          seed: 11, array_cells: 2, artefact_uv_per_ua: 100}\n"
)


@pytest.mark.science
def test_several_cells_sorted_then_each_fitted(tmp_path) -> None:
    """Two cells under the array: spykingcircus2 sorts the quiet recording, the sorting
    is scored against the simulator's cells by SpikeInterface's comparison, and each
    unit with the spikes and evoked responses to fit is fitted and scored against the
    cell it matched."""
    pytest.importorskip("hdbscan")
    (tmp_path / "crowded.yaml").write_text(CROWDED)
    substrates(
        "run",
        "hh-fit",
        "--source",
        "crowded.yaml",
        "--sorter",
        "spykingcircus2",
        "--simulations",
        "200",
        "--out",
        "runs",
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "runs")
    record = json.loads((folder / "provenance.json").read_text())
    assert record["parameters"]["sorter"] == "spykingcircus2"
    (sorting,) = record["sorting"]
    assert [s["cell"] for s in sorting["scores"]] == [0, 1]
    assert all(s["accuracy"] >= 0.9 for s in sorting["scores"]), sorting["scores"]
    summary = record["summary"]
    # the sorter is not deterministic: small fragments (12–17 spikes) were fitted too
    assert summary["units_fitted"] == len(sorting["fitted_units"]) >= 2
    assert undeclared(summary, get_method("hh-fit").summary) == []
    assert summary["mean_sorting_accuracy"] >= 0.9
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    assert {r["cell"] for r in rows} == set(range(summary["units_fitted"]))
    matched = {s["unit"] for s in sorting["scores"]}
    scored = [u for u in sorting["fitted_units"] if u in matched]
    truths = {r["cell"] for r in rows if r["kind"] == "parameter" and r["truth"] is not None}
    assert len(truths) == len(scored) >= 2  # fitted units that matched a cell get its truth
    chosen = [r for r in rows if r["kind"] == "candidate" and r["chosen"] == r["name"]]
    errors = [r["error_prior_fraction"] for r in chosen if r["cell"] in truths]
    assert np.mean(errors) < 0.1
    held = [r["correct"] for r in rows if r.get("set") == "held-out"]
    assert len(held) > 20 and np.mean(held) >= 0.8
    # matched units' predictions also scored against what their cell truly did
    against_truth = [
        r["correct_vs_truth"] for r in rows if r.get("set") == "held-out" and r["cell"] in truths
    ]
    assert len(against_truth) > 20 and np.mean(against_truth) >= 0.8


@pytest.mark.science
def test_several_cells_fitted_from_one_bank(tmp_path) -> None:
    """--bank: one bank of simulated cells around one electrode serves both sorted units
    (built once, recorded in provenance); each unit is fitted from it with its fitting
    electrodes among the seven nearest its reference, and predicts held-out patterns."""
    pytest.importorskip("hdbscan")
    (tmp_path / "crowded.yaml").write_text(CROWDED)
    substrates(
        "run",
        "hh-fit",
        "--source",
        "crowded.yaml",
        "--sorter",
        "spykingcircus2",
        "--bank",
        "100",
        "--out",
        "runs",
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "runs")
    record = json.loads((folder / "provenance.json").read_text())
    (bank,) = record["banks"]
    assert bank["cells"] == 100 and bank["drawn"] > 100 and bank["shape"] == "triphasic"
    summary = record["summary"]
    assert summary["units_fitted"] >= 2
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    held = [r["correct"] for r in rows if r.get("set") == "held-out"]
    assert len(held) > 20 and np.mean(held) >= 0.8


MAXONE_LSB_V = 0.05e-6
"""The step of the MaxOne file built from a session (V): fine enough that quantisation
moves no spike call, coarse enough that ±1.6 mV fits in 16 bits about the mid-code."""
MAXONE_MID = 32768


def _maxone_from_pynwb(nwb_path, path) -> None:
    """The NWB session as a MaxOne file of the legacy layout (neo's and SpikeInterface's
    reading of it): channel n routed to row n + n // 8 of `sig` (rows skipped, as a real
    routing leaves them), electrode n + 1 (the Litke numbering, so one protocol table
    serves both) at the NWB file's position, unsigned samples of MAXONE_LSB_V steps about
    MAXONE_MID, the frame number (first frame 70,000: its high word set) in `sig`'s last
    two rows, and each pulse raising input 1 of `bits` for 4 frames."""
    import h5py
    import pynwb

    with pynwb.NWBHDF5IO(str(nwb_path), "r") as io:
        nwb = io.read()
        series = next(iter(nwb.acquisition.values()))
        microvolts = np.asarray(series.data[:], float) * series.conversion * 1e6
        microvolts += series.offset * 1e6
        rate = float(series.rate)
        ids = [int(i) for i in series.electrodes.data[:]]
        where = nwb.electrodes.to_dataframe().loc[ids]
        onsets = np.sort(nwb.intervals["stimulation"].to_dataframe()["start_time"].to_numpy())
    codes = np.round(microvolts / (MAXONE_LSB_V * 1e6)) + MAXONE_MID
    assert codes.min() >= 0 and codes.max() < 2**16
    rows = np.arange(len(ids)) + np.arange(len(ids)) // 8
    sig = np.zeros((rows.max() + 5, len(codes)), np.uint16)
    sig[rows] = codes.T
    first = 70_000
    sig[-2], sig[-1] = first & 0xFFFF, first >> 16
    mapping = np.zeros(
        len(ids), [("channel", "<i4"), ("electrode", "<i4"), ("x", "<f8"), ("y", "<f8")]
    )
    mapping["channel"], mapping["electrode"] = rows, np.arange(len(ids)) + 1
    mapping["x"], mapping["y"] = where["rel_x"].to_numpy(), where["rel_y"].to_numpy()
    frames = np.round(onsets * rate).astype(np.int64) + first
    edges = np.stack([frames, frames + 4], axis=1).ravel()
    bits = np.zeros(len(edges), [("frameno", "<i8"), ("bits", "<i4")])
    bits["frameno"], bits["bits"] = edges, np.tile([1, 0], len(frames))
    with h5py.File(path, "w") as file:
        file["version"] = np.array([b"20160704"])
        file["settings/lsb"] = np.array([MAXONE_LSB_V])
        file["mapping"], file["sig"], file["bits"] = mapping, sig, bits


def _litke_dataset_from_pynwb(nwb_path, folder, map_csv, tsv_path) -> float:
    """The NWB session's samples as 12-bit Litke files (three, the header in the first),
    electrode n + 1 for the NWB file's channel n, each stimulation a 0.2 ms pulse of −1000
    on the TTL line (electrode 0) and a row of the protocol table at tsv_path; returns the
    gain (µV per ADC unit)."""
    import pandas as pd
    import pynwb

    from substrates.testing.mea import litke_header, litke_pack

    with pynwb.NWBHDF5IO(str(nwb_path), "r") as io:
        nwb = io.read()
        series = (
            nwb.acquisition["recording"]
            if "recording" in nwb.acquisition
            else next(iter(nwb.acquisition.values()))
        )
        microvolts = np.asarray(series.data[:], float) * series.conversion * 1e6
        rate = int(series.rate)
        ids = [int(i) for i in series.electrodes.data[:]]
        electrodes = nwb.electrodes.to_dataframe()
        table = nwb.intervals["stimulation"].to_dataframe()
    gain_uv = float(np.ceil(np.abs(microvolts).max() / 2000 * 100) / 100)
    units = np.clip(np.round(microvolts / gain_uv), -2048, 2047).astype(int)
    samples = np.concatenate([np.zeros((len(units), 1), int), units], axis=1)  # TTL first
    for onset in np.sort(table["start_time"].to_numpy()):
        first = round(float(onset) * rate)
        samples[first : first + 4, 0] = -1000
    folder.mkdir()
    third = -(-len(samples) // 3)
    for k in range(3):
        head = litke_header(samples.shape[1], len(samples), rate) if k == 0 else b""
        part = samples[k * third : (k + 1) * third]
        (folder / f"data{k:06d}.bin").write_bytes(head + litke_pack(part))
    number = {e: n + 1 for n, e in enumerate(ids)}  # NWB electrode id -> Litke electrode
    where = electrodes.loc[ids]
    pd.DataFrame(
        {
            "electrode": [number[e] for e in ids],
            "x_um": where["rel_x"].to_numpy(),
            "y_um": where["rel_y"].to_numpy(),
        }
    ).to_csv(map_csv, index=False)
    rows = []
    for row in table.itertuples():
        found = [int(i) for i in row.electrodes.index]
        weights = list(row.weights) if "weights" in table else [1.0] * len(found)
        site = f"E{number[found[0]]}" + "".join(
            ("-" if float(w) < 0 else "+") + f"E{number[e]}"
            for e, w in zip(found[1:], weights[1:], strict=True)
        )
        rows.append(
            {
                "onset": row.start_time,
                "electrical_stimulation_site": site,
                "electrical_stimulation_current": row.amplitude * float(weights[0]),
                "electrical_stimulation_waveform": row.shape,
            }
        )
    protocol = pd.DataFrame(rows).sort_values("onset", kind="stable").drop(columns="onset")
    protocol.to_csv(tsv_path, sep="\t", index=False)
    return gain_uv


def _events_tsv_from_pynwb(nwb_path, tsv_path) -> None:
    import pandas as pd
    import pynwb

    with pynwb.NWBHDF5IO(str(nwb_path), "r") as io:
        table = io.read().intervals["stimulation"].to_dataframe()
    rows = [
        {
            "onset": 0.0,
            "duration": 1.0,
            "trial_type": "light on",
            "electrical_stimulation_site": None,
            "electrical_stimulation_current": None,
        }
    ]
    for row in table.itertuples():  # electrodes: the referenced rows of the electrodes table
        electrodes = [int(i) for i in row.electrodes.index]
        weights = list(row.weights) if "weights" in table else [1.0] * len(electrodes)
        site = f"E{electrodes[0]}" + "".join(
            ("-" if float(w) < 0 else "+") + f"E{e}"
            for e, w in zip(electrodes[1:], weights[1:], strict=True)
        )
        scale = float(weights[0])  # the first electrode's share: the event's amplitude
        rows.append(
            {
                "onset": row.start_time,
                "duration": row.stop_time - row.start_time,
                "trial_type": "electrical stimulation",
                "electrical_stimulation_site": site,
                "electrical_stimulation_current": row.amplitude * scale,
                "electrical_stimulation_waveform": row.shape,
            }
        )
    pd.DataFrame(rows).to_csv(tsv_path, sep="\t", index=False, na_rep="n/a")


def _quiet_file(path) -> None:
    """A pynwb recording of noise alone: no spikes, no stimulation."""
    from substrates.testing.mea import pynwb_file

    data = np.random.default_rng(2).normal(0, 20, (8000, 6)).astype(np.int16)
    pynwb_file(path, data)


SILENT = (
    "substrate: mea\nbackend: mea.jaxley\n"
    "options: {spontaneous_s: 1.0, spontaneous_hz: 0, trials: 1, stim_electrodes: 1,\n"
    "          currents_ua: [3.0], pair_electrodes: 0, seed: 3}\n"
)
"""Sessions whose cell never fires spontaneously, so that hh-fit cannot observe it."""


@pytest.mark.science
def test_each_session_whose_cell_cannot_be_observed_is_refused_with_its_reason(
    tmp_path,
) -> None:
    """Of several simulated sessions, each one whose cell cannot be observed is refused
    by seed and reason, and the others would go on; when none is left the run fails in
    one line naming every session's reason (exit 2)."""
    (tmp_path / "silent.yaml").write_text(SILENT)
    args = ("run", "hh-fit", "--source", "silent.yaml", "--cells", "2", "--out", "runs")
    result = substrates(*args, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    (line,) = [x for x in result.stderr.splitlines() if "every session was refused" in x]
    for seed in (3, 4):
        assert f"seed {seed}: 0 spontaneous spikes found" in line
    assert result.stderr.count("session refused, the others go on: seed 3") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--source", "mea_nwb"), "no recording given"),
        (("--source", "mea_nwb", "--recording", "none.nwb"), "no such file"),
        (
            ("--recording", "quiet.nwb"),
            "--recording: needs a hardware config whose backend has a 'path' option",
        ),
        (("--source", "mea_nwb", "--recording", "quiet.nwb"), "spontaneous spikes found"),
        (("--source", "events_sim"), "hh-fit needs an MEA backend"),
        (("--simulations", "3"), "--simulations: Input should be greater than or equal to 50"),
        (("--bank", "30000"), "--bank: Input should be less than or equal to 20000"),
        (("--stimulation", "events.tsv"), "--stimulation: needs a recording-file hardware config"),
        (("--spontaneous", "events.tsv"), "--spontaneous: needs a recording-file hardware config"),
        (("--preprocess", "bandpass:300"), "--preprocess: preprocessing step 'bandpass:300'"),
        (
            ("--source", "mea_nwb", "--recording", "quiet.nwb", "--preprocess", "highpass:15000"),
            "frequencies must lie below",
        ),
    ],
)
def test_bad_input_exits_2(tmp_path, args, message) -> None:
    _quiet_file(tmp_path / "quiet.nwb")
    (tmp_path / "events.tsv").write_text("onset\tduration\n")  # it exists; the source is wrong
    result = substrates("run", "hh-fit", *args, cwd=tmp_path, check=False)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "runs").exists()
