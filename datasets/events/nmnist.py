"""N-MNIST and N-Caltech101 (Orchard et al. 2015, the ATIS saccade recordings): one `.bin`
file a sample, in folders named by class (`Train/3/00004.bin`, `101_ObjectCategories/ant/
image_0001.bin`: `class_folders.samples(root, "nmnist")`), read from disk only (nothing is
downloaded).

A file is 5-byte events: byte 0 x, byte 1 y, byte 2 bit 7 polarity, then a 23-bit
timestamp (µs) in byte 2 bits 6–0, byte 3 and byte 4, most significant first. A word whose
y is 240 marks a timestamp overflow: every later timestamp gains 2^13 µs (as the dataset's
own reader, event-Python's eventvision.py, and tonic read it); such words are no events.
N-MNIST's sensor is 34 × 34; N-Caltech101's 240 × 180 (largest coordinates, padded to it).

Example:
    >>> import tempfile, numpy as np
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "00001.bin"
    >>> _ = path.write_bytes(bytes([3, 4, 0x80 | 0, 0x01, 0x02]))  # x 3, y 4, ON, t 258 µs
    >>> events = read_nmnist(path)
    >>> events.array[["t", "x", "y", "p"]].tolist(), (events.width, events.height)
    ([(258, 3, 4, 1)], (34, 34))
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .events import EVENT_DTYPE, EventError, Events

RECORD_BYTES = 5
OVERFLOW_Y = 240
OVERFLOW_US = 1 << 13
SENSORS = {"nmnist": (34, 34), "ncaltech101": (240, 180)}


def read_nmnist(path: str | os.PathLike[str], dataset: str = "nmnist") -> Events:
    """The events of one sample file; `dataset` (nmnist or ncaltech101) gives the sensor."""
    path = Path(path)
    if dataset not in SENSORS:
        raise EventError(f"{path}: dataset {dataset!r}; known: {', '.join(SENSORS)}")
    raw = np.fromfile(path, np.uint8)
    if raw.size % RECORD_BYTES:
        raise EventError(
            f"{path}: {raw.size} bytes are not whole 5-byte events (cut at byte "
            f"{raw.size - raw.size % RECORD_BYTES})"
        )
    words = raw.reshape(-1, RECORD_BYTES).astype(np.int64)
    x, y = words[:, 0], words[:, 1]
    t = ((words[:, 2] & 0x7F) << 16) | (words[:, 3] << 8) | words[:, 4]
    overflow = y == OVERFLOW_Y
    t = t + OVERFLOW_US * np.cumsum(overflow)  # an overflow word counts for itself on
    keep = ~overflow
    events = np.empty(int(keep.sum()), EVENT_DTYPE)
    events["t"], events["x"], events["y"] = t[keep], x[keep], y[keep]
    events["p"] = words[keep, 2] >> 7
    width, height = SENSORS[dataset]
    found = Events(events, width, height)
    found.check(str(path))  # events outside the sensor, time going backwards
    return found
