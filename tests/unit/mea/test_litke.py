"""Litke .bin files built byte by byte from the published layout (Vision's
RawDataHeader512, with a plain Python packer written here), read back by our reader."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from substrates.datasets.mea.geometry import grid, hexagonal, litke_512
from substrates.datasets.mea.litke_bin import read_litke
from substrates.datasets.mea.recording import RecordingError
from substrates.testing.mea import litke_header as header
from substrates.testing.mea import litke_pack as pack


@pytest.mark.parametrize("electrodes", [513, 520, 7, 10])
def test_files_built_from_the_layout_read_back_exactly(tmp_path, electrodes) -> None:
    rng = np.random.default_rng(electrodes)
    samples = rng.integers(-2048, 2048, (300, electrodes))
    samples[:, 0] = rng.integers(0, 2, 300) * (1000 if electrodes % 2 else 2000)
    (tmp_path / "data000.bin").write_bytes(header(electrodes, 300) + pack(samples))
    positions = hexagonal(1, electrodes - 1, 60.0)
    recording, source = read_litke(tmp_path / "data000.bin", positions, gain_uv=0.5)
    assert (recording.samples, recording.channels, recording.sampling_hz) == (
        300,
        electrodes - 1,
        20_000.0,
    )
    raw = recording.get_traces(microvolts=False)
    assert np.array_equal(raw, samples[:, 1:])
    assert np.array_equal(source.unpack(0, 300)[:, 0], samples[:, 0])  # the TTL line
    assert np.allclose(
        recording.get_traces(100, 140, np.array([2, 0])), samples[100:140][:, [3, 1]] * 0.5
    )


def test_bad_files_name_the_problem(tmp_path) -> None:
    samples = np.zeros((50, 513), int)
    whole = header(513, 50) + pack(samples)
    (tmp_path / "cut.bin").write_bytes(whole[: -len(pack(samples))])
    with pytest.raises(RecordingError, match="truncated: the data tag says 50 samples"):
        read_litke(tmp_path / "cut.bin", litke_512(), 1.0)
    (tmp_path / "ok.bin").write_bytes(whole)
    with pytest.raises(
        RecordingError, match=r"512 electrodes \(besides TTL\), but the geometry has 100"
    ):
        read_litke(tmp_path / "ok.bin", grid(10, 10, 60.0), 1.0)
    with pytest.raises(RecordingError, match="gain_uv must be positive"):
        read_litke(tmp_path / "ok.bin", litke_512(), 0.0)
    (tmp_path / "not.bin").write_bytes(b"\x00\x00\x00\x05" + bytes(20))
    with pytest.raises(RecordingError, match=r"not a Litke \.bin"):
        read_litke(tmp_path / "not.bin", litke_512(), 1.0)
    recording, _ = read_litke(tmp_path / "ok.bin", litke_512(30.0), 1.0)
    with pytest.raises(RecordingError, match=r"outside 0\.\.50"):
        recording.get_traces(0, 60)


@pytest.mark.parametrize("length", [len(header(513, 10)) + 10 * 770 + 1, 2**31, 2**32 - 1])
def test_a_header_length_past_the_file_is_refused_not_read_out_of_bounds(tmp_path, length) -> None:
    """Once, a header length beyond the file made the sample count negative and the
    unchecked unpacking loop crashed the process (SIGSEGV)."""
    whole = bytearray(header(513, 10) + pack(np.zeros((10, 513), int)))
    whole[8:12] = struct.pack(">I", length)
    (tmp_path / "long.bin").write_bytes(bytes(whole))
    with pytest.raises(RecordingError, match=f"'header length': {length:,} bytes, but the file"):
        read_litke(tmp_path / "long.bin", litke_512(), 1.0)


def test_geometries_have_their_pitch() -> None:
    positions = litke_512(60.0)
    assert positions.shape == (512, 2) and np.allclose(positions.mean(axis=0), 0)
    nearest = np.sort(np.hypot(*(positions[:, None] - positions[None]).transpose(2, 0, 1)), axis=1)[
        :, 1
    ]
    assert np.allclose(nearest, 60.0)
    with pytest.raises(ValueError, match="30 or 60"):
        litke_512(45.0)


def _dataset(folder, samples, per_file, **header_options) -> None:
    """A multi-file dataset as the acquisition writes it: the header in data000000.bin only,
    the samples continuing, packed, through data000001.bin, … (`per_file` samples each)."""
    folder.mkdir()
    for k, start in enumerate(range(0, len(samples), per_file)):
        body = pack(samples[start : start + per_file])
        head = header(samples.shape[1], len(samples), **header_options) if k == 0 else b""
        (folder / f"data{k:06d}.bin").write_bytes(head + body)


def test_a_multi_file_dataset_reads_as_one_recording(tmp_path) -> None:
    rng = np.random.default_rng(3)
    samples = rng.integers(-2048, 2048, (1000, 513))
    _dataset(tmp_path / "data000", samples, per_file=300)
    assert len(list((tmp_path / "data000").iterdir())) == 4
    for path in (tmp_path / "data000", tmp_path / "data000" / "data000000.bin"):
        recording, source = read_litke(path, litke_512(), 0.5)
        assert recording.samples == 1000
        assert np.array_equal(recording.get_traces(microvolts=False), samples[:, 1:])
        assert np.array_equal(
            recording.get_traces(290, 610, np.array([5]), microvolts=False), samples[290:610, [6]]
        )  # across two file boundaries
        assert np.array_equal(source.unpack(0, 1000)[:, 0], samples[:, 0])
    # an interrupted recording beside another one of its own is not continued by it
    (tmp_path / "run1.bin").write_bytes(header(513, 50) + pack(samples[:30]))
    (tmp_path / "run2.bin").write_bytes(header(513, 50) + pack(samples[:50]))
    assert read_litke(tmp_path / "run1.bin", litke_512(), 0.5)[0].samples == 30


def test_an_interrupted_dataset_is_read_as_far_as_it_goes(tmp_path, caplog) -> None:
    samples = np.random.default_rng(4).integers(-2048, 2048, (700, 520))
    _dataset(tmp_path / "cut", samples, per_file=300)
    last = tmp_path / "cut" / "data000002.bin"
    last.write_bytes(last.read_bytes()[:-1000])  # the last file stops inside a sample
    with caplog.at_level("WARNING", logger="substrates"):
        recording, _ = read_litke(tmp_path / "cut", hexagonal(1, 519, 30.0), 1.0)
    kept = 700 - (1000 + 779) // 780
    assert recording.samples == kept
    assert np.array_equal(recording.get_traces(microvolts=False), samples[:kept, 1:])
    assert f"interrupted recording: {kept} whole samples of the 700" in caplog.text
    middle = tmp_path / "cut" / "data000001.bin"
    middle.write_bytes(middle.read_bytes()[:-5])
    with pytest.raises(RecordingError, match=r"data000001\.bin: holds a part of a sample"):
        read_litke(tmp_path / "cut", hexagonal(1, 519, 30.0), 1.0)


def test_old_trigger_tags_are_skipped_as_bin2py_does(tmp_path) -> None:
    samples = np.random.default_rng(5).integers(-2048, 2048, (40, 7))
    old = struct.pack(">II", 6, 4) + bytes(8)  # size 4 declared, 8 bytes held (old files)
    v2 = struct.pack(">II", 8, 16) + bytes(16)
    (tmp_path / "old.bin").write_bytes(header(7, 40, tags=old + v2) + pack(samples))
    recording, _ = read_litke(tmp_path / "old.bin", hexagonal(1, 6, 60.0), 1.0)
    assert np.array_equal(recording.get_traces(microvolts=False), samples[:, 1:])


def test_the_519_board_needs_and_takes_an_electrode_map(tmp_path) -> None:
    from substrates.backends.registry import create_backend
    from substrates.errors import SubstratesError

    samples = np.random.default_rng(6).integers(-2048, 2048, (50, 520))
    _dataset(tmp_path / "d519", samples, per_file=20, array_id=1501)
    options = {"path": str(tmp_path / "d519"), "gain_uv": 0.25}
    with pytest.raises(
        SubstratesError, match=r"519-electrode 30 µm board; set options\.electrode_map"
    ):
        create_backend("mea.litke", options).recording()
    positions = hexagonal(3, 173, 30.0)
    rows = "".join(f"{e},{x},{y}\n" for e, (x, y) in reversed(list(enumerate(positions, 1))))
    (tmp_path / "map.csv").write_text("electrode,x_um,y_um\n" + rows)
    recording = create_backend(
        "mea.litke", {**options, "electrode_map": str(tmp_path / "map.csv")}
    ).recording()
    assert np.allclose(recording.positions_um, positions) and recording.channels == 519
    assert np.allclose(recording.get_traces(), samples[:, 1:] * 0.25)
    (tmp_path / "bad.csv").write_text("electrode,x_um,y_um\n1,0,0\n1,5,5\n")
    with pytest.raises(SubstratesError, match="numbered 1 … 2, each once"):
        create_backend(
            "mea.litke", {**options, "electrode_map": str(tmp_path / "bad.csv")}
        ).recording()
