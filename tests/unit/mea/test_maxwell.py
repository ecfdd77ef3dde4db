"""Electrode positions from the recording file itself, on files built with h5py in the
layouts neo's readers and probeinterface's read the real ones in: MaxWell MaxOne
(`version` 20160704, `settings/lsb`, `mapping` of channel, electrode, x, y in µm, `sig`
as channels × samples uint16) and 3Brain BRW 3.x (`3BRecInfo`, `3BData/Raw`, channel rows
and columns). Samples through neo; positions equal probeinterface's reading."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.errors import SubstratesError

h5py = pytest.importorskip("h5py")
pytest.importorskip("neo")

LSB_V = 6.3e-6  # a MaxOne amplifier's step: 6.3 µV


def _maxone(path, channels: int = 6, samples: int = 2000) -> np.ndarray:
    """A MaxOne file whose mapping holds an unrouted electrode (channel −1, as MaxWell
    writes them) among its channels; returns the raw uint16 samples."""
    rng = np.random.default_rng(1)
    sig = rng.integers(400, 624, (channels, samples)).astype(np.uint16)  # 10 bits, mid 512
    order = np.r_[np.arange(channels // 2), -1, np.arange(channels // 2, channels)]
    mapping = np.zeros(
        len(order), dtype=[("channel", "<i4"), ("electrode", "<i4"), ("x", "<f8"), ("y", "<f8")]
    )
    mapping["channel"] = order
    mapping["electrode"] = 1000 + np.arange(len(order))
    mapping["x"] = 17.5 * (np.arange(len(order)) % 3)
    mapping["y"] = 17.5 * (np.arange(len(order)) // 3)
    with h5py.File(path, "w") as file:
        file["version"] = np.array([b"20160704"])
        file["settings/lsb"] = np.array([LSB_V])
        file["mapping"] = mapping
        file["sig"] = sig
    return sig


def test_maxone_positions_come_from_its_mapping(tmp_path) -> None:
    import probeinterface

    sig = _maxone(tmp_path / "rec.raw.h5")
    options = {
        "path": str(tmp_path / "rec.raw.h5"),
        "rawio": "MaxwellRawIO",
        "positions_from_file": True,
    }
    recording = create_backend("mea.neo", options).recording()
    assert recording.channels == 6 and recording.sampling_hz == 20_000
    # each channel at the mapping row of its id, as probeinterface reads the table (the
    # unrouted electrode left out)
    probe = probeinterface.read_maxwell(tmp_path / "rec.raw.h5")
    with h5py.File(tmp_path / "rec.raw.h5") as file:
        listed = list(file["mapping"]["channel"])
    expected = np.array([probe.contact_positions[listed.index(c)] for c in range(6)])
    assert np.array_equal(recording.positions_um, expected) and len(probe.contact_positions) == 7
    assert np.allclose(recording.get_traces(0, 100), sig[:, :100].T * LSB_V * 1e6, rtol=1e-5)


def test_other_formats_say_they_hold_no_positions(tmp_path) -> None:
    sig = np.zeros((100, 4), np.int16)
    sig.tofile(tmp_path / "r.raw")
    options = {
        "path": str(tmp_path / "r.raw"),
        "rawio": "RawBinarySignalRawIO",
        "rawio_options": {"nb_channel": 4, "sampling_rate": 20000.0},
        "units": "uV",
        "positions_from_file": True,
    }
    with pytest.raises(SubstratesError, match="RawBinarySignalRawIO files hold no electrode"):
        create_backend("mea.neo", options).recording()
    with pytest.raises(ValueError, match="not both"):
        create_backend("mea.neo", {**options, "probe": "p.json"})


def _biocam_v3(path, rows_cols, frames: int = 500) -> np.ndarray:
    """A 3Brain BRW 3.x file (the layout neo's BiocamRawIO and probeinterface's
    read_3brain read): 12-bit samples over ±4125 µV, frames × channels flattened, the
    channels' 1-based rows and columns in `3BMeaStreams/Raw/Chs`."""
    rng = np.random.default_rng(2)
    raw = rng.integers(1900, 2200, (frames, len(rows_cols))).astype(np.uint16)
    chs = np.array(rows_cols, dtype=[("Row", "<i2"), ("Col", "<i2")])
    with h5py.File(path, "w") as file:
        variables = file.create_group("3BRecInfo/3BRecVars")
        for name, value, dtype in (
            ("BitDepth", 12, "u1"),
            ("MaxVolt", 4125.0, "<f8"),
            ("MinVolt", -4125.0, "<f8"),
            ("NRecFrames", frames, "<i8"),
            ("SamplingRate", 17_855.5, "<f8"),
            ("SignalInversion", 1, "<i4"),
        ):
            variables[name] = np.array([value], dtype)
        file["3BRecInfo/3BMeaStreams/Raw/Chs"] = chs
        file["3BData/Raw"] = raw.reshape(-1)
        file["3BData"].attrs["Version"] = 101
    return raw


def test_3brain_positions_are_its_rows_and_columns_at_the_pitch(tmp_path) -> None:
    import probeinterface

    rows_cols = [(1, 1), (1, 2), (2, 1), (5, 7), (64, 64)]
    raw = _biocam_v3(tmp_path / "rec.brw", rows_cols)
    options = {
        "path": str(tmp_path / "rec.brw"),
        "rawio": "BiocamRawIO",
        "positions_from_file": True,
    }
    recording = create_backend("mea.neo", options).recording()
    reference = probeinterface.read_3brain(tmp_path / "rec.brw")  # its plate pitch: 42 µm
    assert np.array_equal(recording.positions_um, reference.contact_positions)
    spacing = np.unique(np.abs(np.diff(recording.positions_um[:2], axis=0)))
    assert set(spacing) == {0.0, 42.0}
    given = create_backend("mea.neo", {**options, "pitch_um": 81.0}).recording()
    assert np.allclose(given.positions_um, recording.positions_um * 81 / 42)
    # samples: offset −4125 µV and 8250/4096 µV a step, the offset applied per channel
    expected = raw[:100] * (8250 / 4096) - 4125
    assert np.allclose(recording.get_traces(0, 100), expected, atol=1e-2)


MAP_DTYPE = [("channel", "<i4"), ("electrode", "<i4"), ("x", "<f8"), ("y", "<f8")]


def _legacy(path, frames: int = 3000, first_frame: int = 1234) -> np.ndarray:
    """A MaxOne file of the legacy layout as the amplifier writes it: `sig` of 1028 rows
    (channels 0…1023, the frame number's low and high 16 bits in the last two), a mapping
    of routed channels scattered over the rows (one unrouted electrode, −1), `lsb`, and a
    `bits` table raising input 128 for 4 frames at frames 500, 1200 and 2500. Returns sig."""
    rng = np.random.default_rng(3)
    sig = rng.integers(400, 624, (1028, frames)).astype(np.uint16)
    sig[1026], sig[1027] = first_frame & 0xFFFF, first_frame >> 16
    routed = np.array([7, 3, 200, 1023, 64])
    mapping = np.zeros(len(routed) + 1, dtype=MAP_DTYPE)
    mapping["channel"] = np.r_[routed, -1]
    mapping["electrode"] = [9000, 12, 26399, 4400, 77, 5]
    mapping["x"] = [17.5, 35.0, 52.5, 70.0, 87.5, 105.0]
    mapping["y"] = [0.0, 17.5, 35.0, 52.5, 70.0, 87.5]
    edges = [(500, 128), (504, 0), (1200, 128), (1204, 0), (2500, 128), (2504, 0)]
    bits = np.array(
        [(first_frame + f, b) for f, b in edges], dtype=[("frameno", "<i8"), ("bits", "<i4")]
    )
    with h5py.File(path, "w") as file:
        file["version"] = np.array([b"20160704"])
        file["settings/lsb"] = np.array([LSB_V])
        file["mapping"] = mapping
        file["sig"] = sig
        file["bits"] = bits
    return sig


def _later(path, compression=None, frames: int = 4000) -> np.ndarray:
    """A MaxTwo-style file (version 20190530): well000's rec0000 with its routed raw
    samples (channels 0…5 in row order, as neo reads them), sampling and lsb, the samples
    written through `compression` (an hdf5plugin filter, or None)."""
    rng = np.random.default_rng(4)
    raw = rng.integers(400, 624, (6, frames)).astype(np.uint16)
    mapping = np.zeros(6, dtype=MAP_DTYPE)
    mapping["channel"] = np.arange(6)
    mapping["electrode"] = 100 + 7 * np.arange(6)
    mapping["x"], mapping["y"] = 17.5 * np.arange(6), 8.75 * np.arange(6)
    with h5py.File(path, "w") as file:
        file["version"] = np.array([b"20190530"])
        group = file.create_group("wells/well000/rec0000")
        group["settings/sampling"] = np.array([10_000.0])
        group["settings/lsb"] = np.array([LSB_V])
        group["settings/mapping"] = mapping
        group.create_dataset("groups/routed/raw", data=raw, chunks=(6, 1000), **(compression or {}))
        group["groups/routed/frame_nos"] = np.arange(frames, dtype=np.uint64)
    return raw


def test_a_maxone_file_reads_each_channel_from_its_own_row(tmp_path) -> None:
    """Channels 7, 3, 200, 1023, 64 are rows 7, 3, 200, 1023, 64 of `sig`, in mapping
    order, with the mapping's electrode ids and positions (as probeinterface reads the
    table) and lsb's step; the frame-number rows are not channels."""
    import probeinterface

    from substrates.datasets.mea.maxwell import read_maxwell

    sig = _legacy(tmp_path / "rec.raw.h5")
    recording = read_maxwell(tmp_path / "rec.raw.h5")
    assert recording.channels == 5 and recording.sampling_hz == 20_000
    assert recording.electrode_ids.tolist() == [9000, 12, 26399, 4400, 77]
    probe = probeinterface.read_maxwell(tmp_path / "rec.raw.h5")
    electrodes = list(probe.contact_annotations["electrode"])
    for k, electrode in enumerate(recording.electrode_ids):
        at = electrodes.index(electrode)
        assert np.array_equal(recording.positions_um[k], probe.contact_positions[at])
    expected = sig[[7, 3, 200, 1023, 64], :2000].T * LSB_V * 1e6
    assert np.allclose(recording.get_traces(0, 2000), expected, rtol=1e-6)
    some = recording.get_traces(100, 300, np.array([4, 0]))
    assert np.allclose(some, sig[[64, 7], 100:300].T * LSB_V * 1e6, rtol=1e-6)


def test_pulse_times_of_the_bits_table_match_spikeinterface(tmp_path) -> None:
    """Rising edges of `bits` less the first frame, against SpikeInterface's
    MaxwellEventExtractor on the same file; with the first frame past 65,535 (its high
    word set) the onsets stay put (SpikeInterface, under NumPy 2, shifts the uint16 high
    word out and so loses it: it is compared on a file whose high word is 0)."""
    from spikeinterface.extractors import read_maxwell_event

    from substrates.datasets.mea.maxwell import bits_onsets

    _legacy(tmp_path / "low.raw.h5", first_frame=1234)
    onsets = bits_onsets(tmp_path / "low.raw.h5", 20_000.0)
    assert np.allclose(onsets, np.array([500, 1200, 2500]) / 20_000)
    events = read_maxwell_event(tmp_path / "low.raw.h5").get_events(channel_id=128)
    assert np.allclose(onsets, events["time"][events["state"] != -1])  # -1: back to low
    _legacy(tmp_path / "high.raw.h5", first_frame=(3 << 16) | 1234)
    assert np.allclose(bits_onsets(tmp_path / "high.raw.h5", 20_000.0), onsets)


def test_later_files_read_as_neo_reads_them_and_compressed_alike(tmp_path) -> None:
    """A version-20190530 file: samples as neo's MaxwellRawIO gives them (its gain, its
    channel order), electrode positions from the well's mapping; the same samples written
    through hdf5plugin's LZ4 and Blosc filters read the same."""
    import hdf5plugin
    import neo.rawio

    from substrates.datasets.mea.maxwell import read_maxwell

    raw = _later(tmp_path / "plain.raw.h5")
    recording = read_maxwell(tmp_path / "plain.raw.h5")
    reader = neo.rawio.MaxwellRawIO(filename=str(tmp_path / "plain.raw.h5"))
    reader.parse_header()
    chunk = reader.get_analogsignal_chunk(0, 0, 0, 4000, stream_index=0)
    scaled = reader.rescale_signal_raw_to_float(chunk, dtype="float64", stream_index=0)
    assert recording.sampling_hz == 10_000 and recording.electrode_ids.tolist()[:2] == [100, 107]
    assert np.allclose(recording.get_traces(), scaled, rtol=1e-6)
    assert np.array_equal(recording.positions_um[:, 0], 17.5 * np.arange(6))
    for name, compression in {"lz4": hdf5plugin.LZ4(), "blosc": hdf5plugin.Blosc()}.items():
        path = tmp_path / f"{name}.raw.h5"
        _later(path, dict(compression))
        assert np.array_equal(read_maxwell(path).get_traces(), recording.get_traces()), name
    assert np.allclose(raw[:, :5].T * LSB_V * 1e6, recording.get_traces(0, 5), rtol=1e-6)


def test_a_filter_that_is_not_installed_is_named_before_any_sample_is_read(tmp_path) -> None:
    """The LZ4-compressed file read where hdf5plugin is missing (a fresh interpreter that
    cannot import it): one line naming filter 32004, nothing read."""
    import subprocess
    import sys

    import hdf5plugin

    _later(tmp_path / "lz4.raw.h5", dict(hdf5plugin.LZ4()))
    script = (
        "import sys; sys.modules['hdf5plugin'] = None\n"
        "from substrates.datasets.mea.maxwell import read_maxwell\n"
        "from substrates.datasets.mea.recording import RecordingError\n"
        f"try:\n    read_maxwell({str(tmp_path / 'lz4.raw.h5')!r})\n"
        "except RecordingError as error:\n    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "compressed with HDF5 filter 32004" in result.stdout, result.stdout + result.stderr
    assert "HDF5_PLUGIN_PATH" in result.stdout and len(result.stdout.splitlines()) == 1


def test_maxwell_files_that_break_the_layout_are_refused(tmp_path) -> None:
    from substrates.datasets.mea.maxwell import bits_onsets, read_maxwell
    from substrates.datasets.mea.recording import RecordingError

    _later(tmp_path / "later.raw.h5")
    with pytest.raises(RecordingError, match="version 20190530 keeps its events"):
        bits_onsets(tmp_path / "later.raw.h5", 10_000.0)
    with pytest.raises(RecordingError, match="no well 'well003'"):
        read_maxwell(tmp_path / "later.raw.h5", well="well003")
    with h5py.File(tmp_path / "huge.raw.h5", "w") as file:  # 2 TB declared, nothing stored
        file["version"] = np.array([b"20160704"])
        file["settings/lsb"] = np.array([LSB_V])
        file["mapping"] = np.zeros(1, dtype=MAP_DTYPE)
        file.create_dataset("sig", shape=(1028, 10**9), dtype="u2", chunks=(1028, 4096))
    with pytest.raises(RecordingError, match="were written"):
        read_maxwell(tmp_path / "huge.raw.h5")
    _legacy(tmp_path / "rec.raw.h5")
    with h5py.File(tmp_path / "rec.raw.h5", "a") as file:
        mapping = file["mapping"][:]
        mapping["channel"][0] = 1028
        del file["mapping"]
        file["mapping"] = mapping
    with pytest.raises(RecordingError, match="channel 1028 of 1028 rows"):
        read_maxwell(tmp_path / "rec.raw.h5")


def test_neo_refuses_a_maxone_file_whose_channels_are_scattered_over_rows(tmp_path) -> None:
    """neo's MaxwellRawIO would return row 0 as channel 7: mea.neo names mea.maxwell."""
    _legacy(tmp_path / "rec.raw.h5")
    options = {"path": str(tmp_path / "rec.raw.h5"), "rawio": "MaxwellRawIO"}
    with pytest.raises(SubstratesError, match=r"rows \[7, 3, 200, 1023\]… .* mea\.maxwell"):
        create_backend("mea.neo", {**options, "positions_from_file": True}).recording()
    with pytest.raises(SubstratesError, match=r"read it with mea\.maxwell"):
        create_backend("mea.neo", {**options, "rows": 1, "columns": 5}).recording()
