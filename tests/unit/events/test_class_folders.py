"""Class-folder event datasets (CIFAR10-DVS, DVS-Lip, ASL-DVS, POKER-DVS) read as tonic's own
dataset classes convert them, on files written by numpy, scipy and dv-processing in each
dataset's published layout; class folders become labels; broken samples are one line."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events.class_folders import read_sample, samples
from substrates.datasets.events.events import EventError


def columns(seed: int, n: int, width: int, height: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(0, 2_000_000, n))
    return t, rng.integers(0, width, n), rng.integers(0, height, n), rng.integers(0, 2, n)


def tonic_item(cls, data, **attributes):
    """Sample 0 as tonic's dataset class converts it, without its download step."""
    dataset = cls.__new__(cls)
    dataset.data, dataset.targets = [data], [0]
    dataset.transform = dataset.target_transform = dataset.transforms = None
    for name, value in attributes.items():
        setattr(dataset, name, value)
    return dataset[0][0]


def assert_same(ours, theirs) -> None:
    assert len(ours) == np.size(theirs) > 0  # tonic keeps ASL-DVS's column shape
    for name in "txyp":
        assert np.array_equal(
            ours.array[name].astype(np.int64), np.ravel(theirs[name]).astype(np.int64)
        ), name


def test_dvs_lip_reads_as_tonic_reads_it(tmp_path) -> None:
    tonic = pytest.importorskip("tonic.datasets")
    t, x, y, p = columns(1, 2_000, 128, 128)
    stored = np.empty(t.size, [("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "?")])
    stored["t"], stored["x"], stored["y"], stored["p"] = t, x, y, p
    (tmp_path / "accused").mkdir()
    np.save(tmp_path / "accused" / "0.npy", stored)
    ours = read_sample(tmp_path / "accused" / "0.npy", "dvs_lip")
    assert (ours.width, ours.height) == (128, 128)
    assert_same(ours, tonic_item(tonic.DVSLip, str(tmp_path / "accused" / "0.npy")))


def test_asl_dvs_reads_as_tonic_reads_it(tmp_path) -> None:
    """ASL-DVS stores column vectors in MATLAB files, y counted from the bottom."""
    tonic = pytest.importorskip("tonic.datasets")
    from scipy.io import savemat

    t, x, y, p = columns(2, 2_000, 240, 180)
    (tmp_path / "a").mkdir()
    path = tmp_path / "a" / "a_0001.mat"
    savemat(path, {"ts": t[:, None], "x": x[:, None], "y": y[:, None], "pol": p[:, None]})
    ours = read_sample(path, "asl_dvs")
    assert (ours.width, ours.height) == (240, 180)
    assert np.array_equal(ours.array["y"], 179 - y)
    assert_same(ours, tonic_item(tonic.ASLDVS, str(path)))


def test_poker_dvs_reads_as_tonic_reads_it(tmp_path) -> None:
    tonic = pytest.importorskip("tonic.datasets")
    (tmp_path / "pips_train" / "sp").mkdir(parents=True)
    table = np.stack(columns(3, 500, 35, 35), axis=1)
    np.save(tmp_path / "pips_train" / "sp" / "0.npy", table)
    ours = read_sample(tmp_path / "pips_train" / "sp" / "0.npy", "poker_dvs")
    assert_same(ours, tonic_item(tonic.POKERDVS, table))
    assert [label for _, label in samples(tmp_path, "poker_dvs")] == ["sp"]


def test_cifar10dvs_written_by_dv_processing_reads_as_tonic_reads_it(tmp_path) -> None:
    pytest.importorskip("aedat")
    dv = pytest.importorskip("dv_processing")
    tonic_io = pytest.importorskip("tonic.io")
    t, x, y, p = columns(4, 1_000, 128, 128)
    (tmp_path / "bird").mkdir()
    path = tmp_path / "bird" / "cifar10_bird_0.aedat4"
    writer = dv.io.MonoCameraWriter(
        str(path), dv.io.MonoCameraWriter.EventOnlyConfig("DVS128", (128, 128))
    )
    store = dv.EventStore()
    for i in range(t.size):
        store.push_back(int(t[i]) + 1_600_000_000_000_000, int(x[i]), int(y[i]), bool(p[i]))
    writer.writeEvents(store)
    del writer
    ((ours, label),) = samples(tmp_path, "cifar10dvs")
    assert label == "bird" and (ours.width, ours.height) == (128, 128)
    assert_same(ours, tonic_io.read_aedat4(str(path)))


def test_class_folders_are_labels_in_sorted_order(tmp_path) -> None:
    for label, seed in (("zebra", 5), ("ant", 6)):
        (tmp_path / label).mkdir()
        t, x, y, p = columns(seed, 100, 128, 128)
        stored = np.empty(t.size, [("x", "<i2"), ("y", "<i2"), ("p", "?"), ("t", "<i8")])
        stored["t"], stored["x"], stored["y"], stored["p"] = t, x, y, p
        np.save(tmp_path / label / "1.npy", stored)
    assert [(len(e), label) for e, label in samples(tmp_path, "dvs_lip")] == [
        (100, "ant"),
        (100, "zebra"),
    ]


@pytest.mark.parametrize(
    ("name", "dataset", "content", "message"),
    [
        ("a.npy", "dvs_lip", np.zeros(3, [("x", "<i2"), ("t", "<i8")]), "p, y missing"),
        ("b.npy", "poker_dvs", np.zeros((3, 3)), r"N × 4 array .* shape \(3, 3\)"),
        ("c.npy", "poker_dvs", np.array([[0, 40, 0, 1]]), "outside the 35×35 sensor"),
        ("d.npy", "poker_dvs", np.array([[0, 70_000, 0, 1]]), "x=70000"),
        ("e.npy", "poker_dvs", np.array([[0, 1, 1, 2]]), "polarity 2"),
        ("f.npy", "poker_dvs", np.array([[5, 1, 1, 1], [3, 1, 1, 0]]), "backwards"),
        ("g.npy", "poker_dvs", b"\x93NUMPY\x01\x00garbage", "not a readable .npy file"),
        ("h.mat", "asl_dvs", {"ts": np.zeros((2, 1)), "x": np.zeros((2, 1))}, "pol, y missing"),
        ("i.mat", "asl_dvs", b"not matlab at all", "not a readable MATLAB file"),
        (
            "k.mat",
            "asl_dvs",
            {
                "ts": np.array([[0.0], [np.nan]]),
                "x": np.zeros((2, 1)),
                "y": np.zeros((2, 1)),
                "pol": np.zeros((2, 1)),
            },
            "field 'ts': non-finite value nan at event 1",
        ),
        (
            "j.mat",
            "asl_dvs",
            {
                "ts": np.zeros((2, 1)),
                "x": np.zeros((3, 1)),
                "y": np.zeros((2, 1)),
                "pol": np.zeros((2, 1)),
            },
            "columns of different lengths",
        ),
    ],
)
def test_broken_samples_are_one_line_naming_the_file(
    tmp_path, name, dataset, content, message
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, dict):
        from scipy.io import savemat

        savemat(path, content)
    else:
        np.save(path, content)
    with pytest.raises(EventError, match=message) as caught:
        read_sample(path, dataset)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_sample_declaring_gigabytes_is_refused_from_its_headers(tmp_path) -> None:
    """A MATLAB array's dimensions are read before its data: 200,000,000 declared int64
    timestamps are refused before anything is decompressed or allocated (a 1.5 MB zlib
    stream of such a file took 3.2 GB)."""
    import struct

    from scipy.io import savemat

    path = tmp_path / "big.mat"
    savemat(path, {"ts": np.arange(10, dtype=np.int64), "x": [0], "y": [0], "pol": [0]})
    data = path.read_bytes()
    dims = struct.pack("<IIii", 5, 8, 1, 10)  # the miINT32 dimensions of ts: 1 × 10
    assert data.count(dims) == 1
    path.write_bytes(data.replace(dims, struct.pack("<IIii", 5, 8, 1, 2 * 10**8)))
    with pytest.raises(EventError, match="field 'ts': declares 200,000,000 int64 values"):
        read_sample(path, "asl_dvs")


def test_unknown_datasets_and_empty_folders_are_one_line(tmp_path) -> None:
    with pytest.raises(EventError, match="dataset 'dvs_lips'; known: nmnist"):
        next(samples(tmp_path, "dvs_lips"))
    with pytest.raises(EventError, match=r"no \.mat sample files below it"):
        next(samples(tmp_path, "asl_dvs"))
