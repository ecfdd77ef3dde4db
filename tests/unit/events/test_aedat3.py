"""AEDAT 3.1 files and the DVS Gesture dataset, from files built from the published byte
layout (libcaer's events/common.h and polarity.h), checked against tonic's AEDAT reader
where its reading is right and against the construction where it is not."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from substrates.datasets.events.aedat3 import read_aedat3
from substrates.datasets.events.dvs_gesture import CLASSES, samples
from substrates.datasets.events.events import EventError
from substrates.datasets.events.files import read_events

HEADER = (
    b"#!AER-DAT3.1\r\n#Format: RAW\r\n#Source 1: DVS128\r\n"
    b"#Start-Time: 2017-01-01 10:00:00 (TZ+0000)\r\n#!END-HEADER\r\n"
)


def packet(
    kind: int,
    records: list[tuple[int, int]],
    overflow: int = 0,
    capacity: int | None = None,
    size: int = 8,
) -> bytes:
    """A packet of (data, timestamp) records; capacity beyond them is filled with junk."""
    capacity = len(records) if capacity is None else capacity
    head = struct.pack(
        "<HHIIIIII", kind, 1, size, 4, overflow, capacity, len(records), len(records)
    )
    body = b"".join(struct.pack("<Ii", d, t) for d, t in records)
    return head + body + b"\xab" * (size * capacity - len(body))


def polarity(x: int, y: int, p: int, valid: int = 1) -> int:
    return (x << 17) | (y << 2) | (p << 1) | valid


def random_records(seed: int, n: int, start: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    x, y, p = rng.integers(0, 128, n), rng.integers(0, 128, n), rng.integers(0, 2, n)
    t = start + np.sort(rng.integers(0, 500_000, n))
    return [
        (polarity(int(a), int(b), int(c)), int(d)) for a, b, c, d in zip(x, y, p, t, strict=True)
    ]


def test_polarity_packets_read_as_tonic_reads_them(tmp_path) -> None:
    tonic_io = pytest.importorskip("tonic.io")
    path = tmp_path / "clean.aedat"
    path.write_bytes(
        HEADER + packet(1, random_records(1, 300, 0)) + packet(1, random_records(2, 200, 600_000))
    )
    events, info = read_aedat3(path)
    version, start, _ = tonic_io.read_aedat_header_from_file(str(path))
    theirs = tonic_io.get_aer_events_from_file(str(path), version, start)
    address = theirs["address"].astype(np.int64)
    assert version == 3.1 and len(events) == len(theirs) == 500
    assert np.array_equal(events.array["t"], theirs["timeStamp"])
    assert np.array_equal(events.array["x"], (address >> 17) & 0x1FFF)  # read_dvs_ibm's masks
    assert np.array_equal(events.array["y"], (address >> 2) & 0x1FFF)
    assert np.array_equal(events.array["p"], (address >> 1) & 1)
    assert (events.width, events.height, info.sensor_from, info.source) == (
        128,
        128,
        "header",
        "DVS128",
    )


def test_other_packets_invalid_events_padding_and_overflow_follow_the_layout(tmp_path) -> None:
    special = packet(0, [(0x0000_0003, 10), (0x0000_0005, 20)])  # timestamp-reset, … events
    first = [(polarity(1, 2, 1), 100), (polarity(3, 4, 0, valid=0), 150), (polarity(5, 6, 0), 200)]
    late = [(polarity(7, 8, 1), 5)]  # after one overflow: 2^31 + 5 µs
    path = tmp_path / "edges.aedat"
    path.write_bytes(HEADER + special + packet(1, first, capacity=8) + packet(1, late, overflow=1))
    events, info = read_aedat3(path)
    expected = [(100, 1, 2, 1), (200, 5, 6, 0), ((1 << 31) + 5, 7, 8, 1)]
    assert events.array[["t", "x", "y", "p"]].tolist() == expected
    assert (info.skipped_packets, info.skipped_events, info.invalid) == (1, 2, 1)
    ours, file_info = read_events(path)  # the generic reader takes .aedat too
    assert np.array_equal(ours.array, events.array) and file_info.encoding == "aedat3"
    assert file_info.skipped == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (HEADER + packet(1, [(polarity(1, 1, 1), 5)])[:20], "cut short at byte"),
        (HEADER + packet(1, [(polarity(1, 1, 1), 5)])[:-3], "run past the end"),
        (HEADER + packet(1, [(polarity(1, 1, 1), 5)], size=0), "event size 0"),
        (HEADER + packet(1, [(polarity(1, 1, 1), 5)], size=12), "12-byte events"),
        (HEADER + packet(1, [(polarity(1, 1, 1), -5)]), "negative timestamp"),
        (HEADER + packet(1, [(polarity(200, 1, 1), 5)]), "outside"),
        (HEADER + packet(1, [(polarity(1, 1, 1), 50), (polarity(1, 1, 1), 5)]), "backwards"),
        (b"#!AER-DAT2.0\r\n# jAER\r\n" + b"\0" * 16, "AEDAT 2.0"),
        (b"#!AER-DAT3.1\r\n#Source 1: DVS128\r\n", "END-HEADER"),
        (b"\x00\x01\x02", "not an AEDAT file"),
    ],
)
def test_broken_files_are_one_line_naming_the_problem(tmp_path, content, message) -> None:
    path = tmp_path / "bad.aedat"
    path.write_bytes(content)
    with pytest.raises(EventError, match=message):
        read_aedat3(path)


def test_an_unknown_camera_takes_the_callers_size_or_the_largest_coordinates(tmp_path) -> None:
    path = tmp_path / "other.aedat"
    header = HEADER.replace(b"DVS128", b"SomeCamera")
    path.write_bytes(header + packet(1, [(polarity(30, 20, 1), 5)]))
    events, info = read_aedat3(path)
    assert (events.width, events.height, info.sensor_from) == (31, 21, "largest coordinates")
    events, info = read_aedat3(path, 64, 48)
    assert (events.width, events.height, info.sensor_from) == (64, 48, "caller")


def gesture_folder(root: Path) -> dict[str, list[tuple[int, int, int]]]:
    """Two recordings with labels and a train list; returns the labels written."""
    labels = {
        "user01_fluorescent": [(1, 50_000, 200_000), (11, 300_000, 450_000)],
        "user24_led": [(7, 620_000, 900_000)],
    }
    for seed, (stem, rows) in enumerate(labels.items()):
        (root / f"{stem}.aedat").write_bytes(
            HEADER
            + packet(1, random_records(seed, 400, 0))
            + packet(1, random_records(seed + 10, 400, 550_000))
        )
        text = "class,startTime_usec,endTime_usec\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows)
        (root / f"{stem}_labels.csv").write_text(text)
    (root / "trials_to_train.txt").write_text("user01_fluorescent.aedat\n")
    (root / "trials_to_test.txt").write_text("user24_led.aedat\n")
    return labels


def test_dvs_gesture_samples_are_the_labelled_intervals(tmp_path) -> None:
    labels = gesture_folder(tmp_path)
    found = list(samples(tmp_path))
    assert [(s.user, s.lighting, s.label) for s in found] == [
        (1, "fluorescent", 1),
        (1, "fluorescent", 11),
        (24, "led", 7),
    ]
    for sample in found:
        whole, _ = read_aedat3(sample.source)
        t = whole.array["t"]
        inside = whole.array[(t >= sample.start_us) & (t < sample.end_us)]  # brute force
        assert len(inside) > 10 and np.array_equal(sample.events.array, inside)
        assert (sample.events.width, sample.events.height) == (128, 128)
    assert [s.label for s in samples(tmp_path, "train")] == [
        a for a, _, _ in labels["user01_fluorescent"]
    ]
    assert [s.name for s in samples(tmp_path, "test")] == ["Left arm ccw"]
    tonic = pytest.importorskip("tonic")
    assert list(CLASSES) == tonic.datasets.DVSGesture.classes


def test_dvs_gesture_problems_are_one_line(tmp_path) -> None:
    with pytest.raises(EventError, match=r"no \.aedat recordings"):
        list(samples(tmp_path))
    gesture_folder(tmp_path)
    (tmp_path / "trials_to_test.txt").unlink()
    with pytest.raises(EventError, match=r"no trials_to_test\.txt"):
        list(samples(tmp_path, "test"))
    (tmp_path / "user24_led_labels.csv").write_text("class,startTime_usec,endTime_usec\n12,1,2\n")
    with pytest.raises(EventError, match="line 2: class 12"):
        list(samples(tmp_path))
    (tmp_path / "user24_led_labels.csv").unlink()
    with pytest.raises(EventError, match=r"no labels file user24_led_labels\.csv"):
        list(samples(tmp_path))
