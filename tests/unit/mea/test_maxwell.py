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
