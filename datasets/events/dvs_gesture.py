"""The IBM DVS Gesture dataset (Amir et al. 2017) as IBM distributes it, read from disk
only (nothing is downloaded): one AEDAT 3.1 recording a user and lighting
(`user01_fluorescent.aedat`, a DVS128), beside it `user01_fluorescent_labels.csv` with
`class,startTime_usec,endTime_usec` rows (classes 1–11), and optionally
`trials_to_train.txt` / `trials_to_test.txt` listing the recordings of each split.

Each labelled interval [start, end) of a recording is one sample; tonic's `DVSGesture`
serves the same samples pre-cut (and at 1 ms resolution), with the same class order.

Example:
    >>> import struct, tempfile
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp())
    >>> header = b"#!AER-DAT3.1\\r\\n#Source 1: DVS128\\r\\n#!END-HEADER\\r\\n"
    >>> packet = struct.pack("<HHIIIIII", 1, 1, 8, 4, 0, 2, 2, 2)
    >>> events = b"".join(struct.pack("<Ii", (x << 17) | (9 << 2) | 1, t)
    ...                   for x, t in ((3, 100), (4, 900)))
    >>> _ = (root / "user02_led.aedat").write_bytes(header + packet + events)
    >>> _ = (root / "user02_led_labels.csv").write_text(
    ...     "class,startTime_usec,endTime_usec\\n4,50,500\\n")
    >>> [(s.label, s.name, s.user, s.lighting, len(s.events)) for s in samples(root)]
    [(4, 'Right arm cw', 2, 'led', 1)]
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from .aedat3 import read_aedat3
from .events import EventError, Events

CLASSES = (
    "Hand clapping",
    "Right hand wave",
    "Left hand wave",
    "Right arm cw",
    "Right arm ccw",
    "Left arm cw",
    "Left arm ccw",
    "Arm roll",
    "Air drums",
    "Air guitar",
    "Other gestures",
)
"""Class names by label − 1 (the labels files count from 1; tonic's order)."""
SPLITS = {"train": "trials_to_train.txt", "test": "trials_to_test.txt"}


@dataclass(frozen=True)
class GestureSample:
    """events: the recording's events in [start_us, end_us); label: 1–11; name: the
    class; user and lighting: from the file name; source: the recording."""

    events: Events
    label: int
    name: str
    user: int
    lighting: str
    start_us: int
    end_us: int
    source: Path


def samples(
    root: str | os.PathLike[str], split: Literal["train", "test"] | None = None
) -> Iterator[GestureSample]:
    """Every labelled sample of the recordings below `root` (all, or those the split's
    list names), recordings in sorted order, samples in the labels file's order."""
    root = Path(root)
    recordings = sorted(p for p in root.rglob("*.aedat") if p.suffix == ".aedat")
    if split is not None:
        listing = next(iter(sorted(root.rglob(SPLITS[split]))), None)
        if listing is None:
            raise EventError(f"{root}: no {SPLITS[split]} below it for the {split} split")
        names = {line.strip() for line in listing.read_text().splitlines() if line.strip()}
        recordings = [p for p in recordings if p.name in names]
    if not recordings:
        raise EventError(
            f"{root}: no .aedat recordings below it (DVS Gesture expected; nothing is downloaded)"
        )
    for path in recordings:
        yield from recording_samples(path)


def recording_samples(path: str | os.PathLike[str]) -> Iterator[GestureSample]:
    """The labelled samples of one recording, from its `<stem>_labels.csv`."""
    path = Path(path)
    labels = path.with_name(f"{path.stem}_labels.csv")
    if not labels.is_file():
        raise EventError(f"{path}: no labels file {labels.name} beside it")
    rows = _labels(labels)
    user, lighting = _user_lighting(path)
    events, _ = read_aedat3(path)
    times = events.array["t"]
    for label, start, end in rows:
        cut = events.array[np.searchsorted(times, start) : np.searchsorted(times, end)]
        yield GestureSample(
            Events(cut, events.width, events.height),
            label,
            CLASSES[label - 1],
            user,
            lighting,
            start,
            end,
            path,
        )


def _labels(path: Path) -> list[tuple[int, int, int]]:
    """(label, start µs, end µs) rows; one line for anything else."""
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    if not lines or lines[0].replace(" ", "").lower() != "class,starttime_usec,endtime_usec":
        raise EventError(f"{path}: the first line is not 'class,startTime_usec,endTime_usec'")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            label, start, end = (int(v) for v in line.split(","))
        except ValueError:
            raise EventError(f"{path}: line {number} is not three integers: {line!r}") from None
        if not 1 <= label <= len(CLASSES) or end <= start:
            raise EventError(
                f"{path}: line {number}: class {label} (1–{len(CLASSES)}) from {start} to {end} µs"
            )
        rows.append((label, start, end))
    return rows


def _user_lighting(path: Path) -> tuple[int, str]:
    """From `user<NN>_<lighting>.aedat`."""
    stem = path.stem
    head, _, lighting = stem.partition("_")
    if not head.startswith("user") or not head[4:].isdigit() or not lighting:
        raise EventError(
            f"{path}: not named user<NN>_<lighting>.aedat as DVS Gesture names its recordings"
        )
    return int(head[4:]), lighting
