"""N-MNIST / N-Caltech101 sample files built from the published 5-byte layout read as
tonic's reader reads them; class folders become labels; broken files are one line."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events.class_folders import samples
from substrates.datasets.events.events import EventError
from substrates.datasets.events.nmnist import read_nmnist


def sample_bytes(seed: int, n: int = 3_000, side: int = 34) -> bytes:
    """Events packed bit by bit as Orchard et al. describe (times within 23 bits)."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(0, 1 << 23, n))
    x, y, p = rng.integers(0, side, n), rng.integers(0, side, n), rng.integers(0, 2, n)
    words = []
    for i in range(n):
        ts = int(t[i])
        words.append(
            bytes(
                [int(x[i]), int(y[i]), (int(p[i]) << 7) | (ts >> 16), (ts >> 8) & 0xFF, ts & 0xFF]
            )
        )
    return b"".join(words)


def test_a_sample_reads_as_tonic_reads_it(tmp_path) -> None:
    tonic_io = pytest.importorskip("tonic.io")
    path = tmp_path / "00001.bin"
    path.write_bytes(sample_bytes(1))
    ours = read_nmnist(path)
    dtype = np.dtype([("x", int), ("y", int), ("t", int), ("p", int)])
    theirs = tonic_io.read_mnist_file(str(path), dtype=dtype)
    assert len(ours) == len(theirs) == 3_000 and (ours.width, ours.height) == (34, 34)
    for name in "txyp":
        assert np.array_equal(ours.array[name].astype(np.int64), theirs[name])


def test_overflow_words_move_later_times_on_as_tonic_does(tmp_path) -> None:
    tonic_io = pytest.importorskip("tonic.io")
    rng = np.random.default_rng(2)
    chunks = []
    for span in range(3):  # three spans of rising times, each after an overflow word
        if span:
            chunks.append(bytes([0, 240, 0, 0, 0]))
        for ts in np.sort(rng.integers(0, 1 << 13, 50)):
            chunks.append(
                bytes([5, 6, 0x80 | (int(ts) >> 16), (int(ts) >> 8) & 0xFF, int(ts) & 0xFF])
            )
    path = tmp_path / "a.bin"
    path.write_bytes(b"".join(chunks))
    ours = read_nmnist(path)
    theirs = tonic_io.read_mnist_file(
        str(path), dtype=np.dtype([("x", int), ("y", int), ("t", int), ("p", int)])
    )
    assert len(ours) == 150 and np.array_equal(ours.array["t"].astype(np.int64), theirs["t"])
    assert ours.array["t"][100] >= 2 * (1 << 13)


def test_class_folders_are_labels(tmp_path) -> None:
    for label, seed in (("0", 3), ("7", 4)):
        (tmp_path / "Train" / label).mkdir(parents=True)
        (tmp_path / "Train" / label / "00001.bin").write_bytes(sample_bytes(seed, 200))
    found = [(len(events), label) for events, label in samples(tmp_path, "nmnist")]
    assert found == [(200, "0"), (200, "7")]


def test_broken_samples_are_one_line(tmp_path) -> None:
    (tmp_path / "cut.bin").write_bytes(sample_bytes(5, 10)[:-2])
    with pytest.raises(EventError, match="not whole 5-byte events"):
        read_nmnist(tmp_path / "cut.bin")
    (tmp_path / "wide.bin").write_bytes(bytes([200, 3, 0, 0, 1]))
    with pytest.raises(EventError, match="outside the 34×34 sensor"):
        read_nmnist(tmp_path / "wide.bin")
    with pytest.raises(EventError, match=r"no \.bin sample files"):
        next(samples(tmp_path / "empty", "nmnist"))
