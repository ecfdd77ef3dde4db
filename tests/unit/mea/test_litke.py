"""Litke .bin files built byte by byte from the published layout (Vision's
RawDataHeader512, with a plain Python packer written here), read back by our reader."""

from __future__ import annotations

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
    assert (recording.samples, recording.channels, recording.sampling_hz) == (300, electrodes - 1,
                                                                             20_000.0)  # fmt: skip
    raw = recording.get_traces(microvolts=False)
    assert np.array_equal(raw, samples[:, 1:])
    assert np.array_equal(source.unpack(0, 300)[:, 0], samples[:, 0])  # the TTL line
    assert np.allclose(recording.get_traces(100, 140, np.array([2, 0])),
                       samples[100:140][:, [3, 1]] * 0.5)  # fmt: skip


def test_bad_files_name_the_problem(tmp_path) -> None:
    samples = np.zeros((50, 513), int)
    whole = header(513, 50) + pack(samples)
    (tmp_path / "cut.bin").write_bytes(whole[:-100])
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


def test_geometries_have_their_pitch() -> None:
    positions = litke_512(60.0)
    assert positions.shape == (512, 2) and np.allclose(positions.mean(axis=0), 0)
    nearest = np.sort(np.hypot(*(positions[:, None] - positions[None]).transpose(2, 0, 1)),
                      axis=1)[:, 1]  # fmt: skip
    assert np.allclose(nearest, 60.0)
    with pytest.raises(ValueError, match="30 or 60"):
        litke_512(45.0)
