"""NWB recordings: a file written by pynwb itself is read sample for sample; ours is read by
pynwb; files without an electrodes table or with a channel mismatch are refused."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.mea.recording import RecordingError
from substrates.testing.mea import pynwb_file

pynwb = pytest.importorskip("pynwb")


def test_a_pynwb_file_reads_sample_for_sample(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    data = np.random.default_rng(1).integers(-2000, 2000, (5000, 6)).astype(np.int16)
    pynwb_file(tmp_path / "r.nwb", data)
    recording = read_nwb(tmp_path / "r.nwb")
    assert (recording.samples, recording.channels, recording.sampling_hz) == (5000, 6, 20_000)
    assert recording.gain_uv == pytest.approx(0.25)
    assert np.array_equal(recording.get_traces(100, 200, np.array([4, 1]), microvolts=False),
                          data[100:200][:, [4, 1]])  # fmt: skip
    assert np.allclose(recording.positions_um[:, 0], 60.0 * np.arange(6))


def test_our_file_reads_back_in_pynwb(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb, write_nwb
    from substrates.datasets.mea.recording import Recording, Stimulation

    data = np.random.default_rng(2).integers(-2000, 2000, (800, 4)).astype(np.int16)
    pynwb_file(tmp_path / "a.nwb", data)
    base = read_nwb(tmp_path / "a.nwb")
    pulses = Stimulation(np.array([0.01, 0.02]), ((2,), (1, 3)), np.array([0.5, 1.25]),
                         ("biphasic", "triphasic"))  # fmt: skip
    recording = Recording(base.source, base.samples, base.sampling_hz, base.gain_uv,
                          base.electrode_ids, base.positions_um, pulses)  # fmt: skip
    write_nwb(recording, tmp_path / "ours.nwb")
    with pynwb.NWBHDF5IO(str(tmp_path / "ours.nwb"), "r") as io:
        nwb = io.read()
        series = nwb.acquisition["ElectricalSeries"]
        assert np.array_equal(series.data[:], data) and series.conversion == pytest.approx(2.5e-7)
        assert list(nwb.intervals["stimulation"]["electrodes"][:]) == ["2", "1+3"]
    again = read_nwb(tmp_path / "ours.nwb")
    assert again.stimulation.electrodes == ((2,), (1, 3))
    assert np.allclose(again.stimulation.current_ua, [0.5, 1.25])


def test_files_missing_what_a_recording_needs_are_refused(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    data = np.zeros((10, 3), np.int16)
    pynwb_file(tmp_path / "nopos.nwb", data, positions=False)
    with pytest.raises(RecordingError, match="field 'electrodes': no rel_x, rel_y"):
        read_nwb(tmp_path / "nopos.nwb")
    (tmp_path / "junk.nwb").write_bytes(b"junk")
    with pytest.raises(RecordingError, match="not a readable NWB file"):
        read_nwb(tmp_path / "junk.nwb")
    pynwb_file(tmp_path / "r.nwb", data)
    with pytest.raises(RecordingError, match=r"no ElectricalSeries lfp \(found: raw\)"):
        read_nwb(tmp_path / "r.nwb", series="lfp")
