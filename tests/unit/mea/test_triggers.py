"""Pulse times from the recording itself — a Litke TTL line built from the published byte
layout, a neo RawIO's event channel read against neo's own high-level reading — and the
protocol table that says what each pulse was."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.mea.bids_events import read_events_tsv
from substrates.datasets.mea.recording import RecordingError
from substrates.datasets.mea.triggers import neo_event_onsets, ttl_onsets
from substrates.testing.mea import litke_header, litke_pack


def test_ttl_onsets_of_pulses_of_either_sign() -> None:
    line = np.full(2_000, 12, np.int16)  # a resting offset, as real lines have
    starts = [100, 731, 1500]
    for s in starts:
        line[s : s + 5] = -900
    assert np.allclose(ttl_onsets(line, 20_000.0), np.array(starts) / 20_000)
    assert np.allclose(ttl_onsets(-line, 20_000.0), np.array(starts) / 20_000)
    assert np.allclose(ttl_onsets(line, 20_000.0, threshold=-100), np.array(starts) / 20_000)
    line[:3] = -900  # already on at the first sample: not an onset
    assert len(ttl_onsets(line, 20_000.0)) == 3
    assert len(ttl_onsets(np.zeros(50), 20_000.0)) == 0
    with pytest.raises(RecordingError, match="not between"):
        ttl_onsets(line, 20_000.0, threshold=500)


@pytest.mark.parametrize("electrodes", [65, 66])  # odd: a 16-bit TTL word; even: 12-bit
def test_the_litke_ttl_line_equals_the_unpacked_electrode_zero(tmp_path, electrodes) -> None:
    from substrates.datasets.mea.litke_bin import read_litke

    rng = np.random.default_rng(electrodes)
    samples = rng.integers(-2000, 2000, (900, electrodes))
    samples[:, 0] = 0
    samples[[50, 51, 400, 401, 402, 850], 0] = -1000
    folder = tmp_path / "data000"
    folder.mkdir()
    for k, part in enumerate(np.array_split(samples, 3)):  # the header in the first file
        head = litke_header(electrodes, len(samples)) if k == 0 else b""
        (folder / f"data{k:06d}.bin").write_bytes(head + litke_pack(part))
    positions = np.zeros((electrodes - 1, 2))
    _, source = read_litke(folder, positions, 0.5)
    ttl = source.ttl()
    assert np.array_equal(ttl, source.unpack(0, len(samples))[:, 0])
    assert np.array_equal(ttl, samples[:, 0])
    assert np.allclose(ttl_onsets(ttl, 20_000.0), np.array([50, 400, 850]) / 20_000)


def test_neo_event_channel_onsets_equal_neos_own_reading() -> None:
    neo = pytest.importorskip("neo")
    from neo.rawio import ExampleRawIO  # neo's in-package RawIO with event channels

    rawio = ExampleRawIO(filename="session.fake")
    rawio.parse_header()
    segment = neo.io.ExampleIO(filename="session.fake").read_block().segments[0]
    events = next(e for e in segment.events if e.name == "Some events")
    expected = np.sort(events.times.rescale("s").magnitude - segment.t_start.rescale("s").magnitude)
    assert len(expected) > 5
    assert np.allclose(neo_event_onsets(rawio, "Some events"), expected)
    assert np.allclose(neo_event_onsets(rawio, "ev_0"), expected)  # by id
    with pytest.raises(RecordingError, match="no event channel 'TTL'; the file has 'Some events'"):
        neo_event_onsets(rawio, "TTL")


def test_a_protocol_pairs_its_rows_with_the_pulses_in_order(tmp_path) -> None:
    path = tmp_path / "protocol.tsv"
    path.write_text(
        "electrical_stimulation_site\telectrical_stimulation_current\n"
        "E3\t-1e-6\nE3-E4\t-2e-6\nn/a\tn/a\nE5\t1.5e-6\n"
    )
    found = read_events_tsv(path, [3, 4, 5], onsets_s=np.array([0.9, 0.1, 0.5]))
    stim = found.stimulation
    assert stim.time_s.tolist() == [0.1, 0.5, 0.9] and found.skipped_rows == 1
    assert stim.electrodes == ((3,), (3, 4), (5,)) and stim.current_ua.tolist() == [-1, -2, 1.5]
    with pytest.raises(RecordingError, match="3 stimulation rows, but the recording marks 2"):
        read_events_tsv(path, [3, 4, 5], onsets_s=np.array([0.1, 0.2]))
    timed = tmp_path / "events.tsv"
    timed.write_text(
        "onset\tduration\telectrical_stimulation_site\t"
        "electrical_stimulation_current\n0.1\t0\tE3\t-1e-6\n"
    )
    with pytest.raises(RecordingError, match="has an 'onset' column"):
        read_events_tsv(timed, [3], onsets_s=np.array([0.1]))


def open_ephys_folder(root, first_sample: int, onsets: list[int]) -> np.ndarray:
    """An Open Ephys binary recording (GUI 0.6 layout: structure.oebin, continuous.dat of
    int16, sample_numbers.npy; a TTL_1 event folder with the rising and falling edges of
    each pulse), written with numpy and json from Open Ephys' documentation; returns the
    samples."""
    import json

    rec = root / "experiment1" / "recording1"
    continuous = rec / "continuous" / "Rhythm_FPGA-100.0"
    events = rec / "events" / "Rhythm_FPGA-100.0" / "TTL_1"
    continuous.mkdir(parents=True)
    events.mkdir(parents=True)
    rate, count, channels = 20_000.0, 40_000, 4
    data = np.random.default_rng(0).integers(-500, 500, (count, channels)).astype("<i2")
    (continuous / "continuous.dat").write_bytes(data.tobytes())
    clock = np.arange(first_sample, first_sample + count, dtype=np.int64)
    np.save(continuous / "sample_numbers.npy", clock)
    np.save(continuous / "timestamps.npy", clock / rate)
    edges = np.repeat(np.asarray(onsets, np.int64) + first_sample, 2)
    edges[1::2] += 10
    states = np.tile(np.array([1, -1], np.int16), len(onsets))
    np.save(events / "sample_numbers.npy", edges)
    np.save(events / "timestamps.npy", edges / rate)
    np.save(events / "states.npy", states)
    np.save(events / "full_words.npy", (states > 0).astype(np.uint64))
    stream = {
        "folder_name": "Rhythm_FPGA-100.0/",
        "sample_rate": rate,
        "num_channels": channels,
        "source_processor_name": "Rhythm FPGA",
        "source_processor_id": 100,
        "stream_name": "Rhythm_FPGA-100.0",
        "recorded_processor": "Record Node",
        "recorded_processor_id": 101,
        "channels": [
            {
                "channel_name": f"CH{i + 1}",
                "description": "",
                "identifier": "",
                "history": "",
                "bit_volts": 0.195,
                "units": "uV",
            }
            for i in range(channels)
        ],
    }
    ttl = {
        "folder_name": "Rhythm_FPGA-100.0/TTL_1/",
        "channel_name": "TTL Input",
        "description": "",
        "identifier": "",
        "sample_rate": rate,
        "type": "int16",
        "num_channels": 8,
        "source_processor": "Rhythm FPGA",
        "stream_name": "Rhythm_FPGA-100.0",
    }
    layout = {"GUI version": "0.6.4", "continuous": [stream], "events": [ttl], "spikes": []}
    (rec / "structure.oebin").write_text(json.dumps(layout))
    return data


def test_an_open_ephys_folder_gives_its_samples_and_its_ttl_onsets(tmp_path) -> None:
    pytest.importorskip("neo")
    from substrates.datasets.mea.neo_files import read_neo

    onsets = [5_000, 12_345, 30_000]  # samples after the recording's first
    data = open_ephys_folder(tmp_path, 60_000, onsets)
    recording = read_neo(tmp_path, np.zeros((4, 2)), rawio="OpenEphysBinaryRawIO")
    assert recording.sampling_hz == 20_000 and recording.samples == len(data)
    assert np.allclose(recording.get_traces(0, 100), data[:100] * 0.195)
    found = neo_event_onsets(recording.source.rawio, "TTL Input")
    assert np.allclose(found, np.array(onsets) / 20_000)  # from the first sample, not the clock
