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
    path.write_text("electrical_stimulation_site\telectrical_stimulation_current\n"
                    "E3\t-1e-6\nE3-E4\t-2e-6\nn/a\tn/a\nE5\t1.5e-6\n")  # fmt: skip
    found = read_events_tsv(path, [3, 4, 5], onsets_s=np.array([0.9, 0.1, 0.5]))
    stim = found.stimulation
    assert stim.time_s.tolist() == [0.1, 0.5, 0.9] and found.skipped_rows == 1
    assert stim.electrodes == ((3,), (3, 4), (5,)) and stim.current_ua.tolist() == [-1, -2, 1.5]
    with pytest.raises(RecordingError, match="3 stimulation rows, but the recording marks 2"):
        read_events_tsv(path, [3, 4, 5], onsets_s=np.array([0.1, 0.2]))
    timed = tmp_path / "events.tsv"
    timed.write_text("onset\tduration\telectrical_stimulation_site\t"
                     "electrical_stimulation_current\n0.1\t0\tE3\t-1e-6\n")  # fmt: skip
    with pytest.raises(RecordingError, match="has an 'onset' column"):
        read_events_tsv(timed, [3], onsets_s=np.array([0.1]))
