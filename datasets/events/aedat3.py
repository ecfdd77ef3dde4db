"""iniVation AEDAT 3.1 files (cAER / jAER recordings of DVS128 and DAVIS cameras; the IBM
DVS Gesture dataset ships in it), read from the published layout (libcaer's
`events/common.h` and `events/polarity.h`).

A file is an ASCII header — lines starting with `#`, the first `#!AER-DAT3.1`, the last
`#!END-HEADER` — then packets, little-endian. A packet is a 28-byte header (uint16
eventType, uint16 eventSource, uint32 eventSize, eventTSOffset, eventTSOverflow,
eventCapacity, eventNumber, eventValid) followed by eventCapacity events of eventSize
bytes. A polarity event (type 1) is 8 bytes: uint32 data (bit 0 valid, bit 1 polarity,
bits 2–16 y, bits 17–31 x) and an int32 timestamp (µs), whose 64-bit time is
eventTSOverflow · 2^31 + timestamp. Only the first eventNumber events of a packet are
events, and only those marked valid; packets of other types (special events, frames, IMU)
are skipped and counted, never dropped silently; a header or packet cut short is an error
naming the byte.

Example:
    >>> import struct, tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "one.aedat"
    >>> header = b"#!AER-DAT3.1\\r\\n#Source 1: DVS128\\r\\n#!END-HEADER\\r\\n"
    >>> packet = struct.pack("<HHIIIIII", 1, 1, 8, 4, 0, 1, 1, 1)
    >>> event = struct.pack("<Ii", (5 << 17) | (7 << 2) | (1 << 1) | 1, 1_000)
    >>> _ = path.write_bytes(header + packet + event)
    >>> events, info = read_aedat3(path)
    >>> events.array[["t", "x", "y", "p"]].tolist(), (events.width, events.height)
    ([(1000, 5, 7, 1)], (128, 128))
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .events import EVENT_DTYPE, EventError, Events
from .prophesee_header import check_sensor

PACKET_HEADER = np.dtype(
    [
        ("type", "<u2"),
        ("source", "<u2"),
        ("size", "<u4"),
        ("ts_offset", "<u4"),
        ("ts_overflow", "<u4"),
        ("capacity", "<u4"),
        ("number", "<u4"),
        ("valid", "<u4"),
    ]
)
POLARITY_EVENT = 1
POLARITY_RECORD = np.dtype([("data", "<u4"), ("timestamp", "<i4")])
TS_OVERFLOW_SHIFT = 31
"""libcaer: timestamps have 31 significant bits, the overflow counter the rest."""
HEADER_LIMIT = 1 << 20
"""Bytes searched for the end of the header (headers are a few hundred bytes)."""
SENSORS = {
    "DVS128": (128, 128),
    "DAVIS240": (240, 180),
    "DAVIS346": (346, 260),
    "DAVIS640": (640, 480),
    "DVXPLORER": (640, 480),
}
"""Sensor sizes (width, height) by the camera named on the header's `#Source` line."""


@dataclass(frozen=True)
class Aedat3Info:
    """version: of the header; source: the camera the header names; sensor_from: header,
    caller or the events' largest coordinates; skipped_packets / skipped_events: packets of
    other types and the events they held; invalid: polarity events marked invalid."""

    version: str
    source: str | None
    sensor_from: str
    skipped_packets: int
    skipped_events: int
    invalid: int


def read_aedat3(
    path: str | os.PathLike[str], width: int | None = None, height: int | None = None
) -> tuple[Events, Aedat3Info]:
    """The polarity events of an AEDAT 3.x file. The sensor size comes from the camera
    the header names, else from `width`/`height`, else from the largest coordinates."""
    path = Path(path)
    raw = np.fromfile(path, np.uint8)
    version, source, start = _header(raw, path)
    chunks, skipped_packets, skipped_events, invalid = [], 0, 0, 0
    offset = start
    while offset < raw.size:
        if raw.size - offset < PACKET_HEADER.itemsize:
            raise EventError(
                f"{path}: a packet header is cut short at byte {offset} "
                f"({raw.size - offset} of 28 bytes)"
            )
        head = raw[offset : offset + PACKET_HEADER.itemsize].view(PACKET_HEADER)[0]
        size, capacity, number = int(head["size"]), int(head["capacity"]), int(head["number"])
        body = offset + PACKET_HEADER.itemsize
        end = body + size * capacity
        if size == 0 or number > capacity or end > raw.size:
            problem = (
                "event size 0"
                if size == 0
                else f"{number} events in a packet of capacity {capacity}"
                if number > capacity
                else f"{capacity} events of {size} bytes run past the end ({raw.size} bytes)"
            )
            raise EventError(f"{path}: damaged packet at byte {offset}: {problem}")
        if int(head["type"]) != POLARITY_EVENT:
            skipped_packets, skipped_events = skipped_packets + 1, skipped_events + number
        elif size != POLARITY_RECORD.itemsize:
            raise EventError(
                f"{path}: polarity packet at byte {offset} has {size}-byte events (8 expected)"
            )
        else:
            records = raw[body : body + 8 * number].view(POLARITY_RECORD)
            valid = (records["data"] & 1).astype(bool)
            invalid += int((~valid).sum())
            records = records[valid]
            if len(records) and records["timestamp"].min() < 0:
                raise EventError(
                    f"{path}: negative timestamp in the polarity packet at byte {offset}"
                )
            found = np.empty(len(records), EVENT_DTYPE)
            data = records["data"].astype(np.int64)
            found["t"] = (int(head["ts_overflow"]) << TS_OVERFLOW_SHIFT) + records[
                "timestamp"
            ].astype(np.int64)
            found["x"], found["y"] = (data >> 17) & 0x7FFF, (data >> 2) & 0x7FFF
            found["p"] = (data >> 1) & 1
            chunks.append(found)
        offset = end
    array = np.concatenate(chunks) if chunks else np.empty(0, EVENT_DTYPE)
    width, height, sensor_from = _sensor(source, width, height, array, path)
    events = Events(array, width, height).check(str(path))
    return events, Aedat3Info(
        version, source, sensor_from, skipped_packets, skipped_events, invalid
    )


def _header(raw: np.ndarray, path: Path) -> tuple[str, str | None, int]:
    """(version, the `#Source` camera or None, the byte after `#!END-HEADER`)."""
    head = raw[:HEADER_LIMIT].tobytes()
    if not head.startswith(b"#!AER-DAT"):
        raise EventError(f"{path}: not an AEDAT file (no '#!AER-DAT' at byte 0)")
    version = head[9 : head.find(b"\n")].strip().decode("ascii", "replace")
    if not version.startswith("3."):
        raise EventError(
            f"{path}: AEDAT {version} (only AEDAT 3.x is read here; AEDAT 4 files end in .aedat4)"
        )
    mark = head.find(b"#!END-HEADER")
    if mark < 0:
        raise EventError(f"{path}: no '#!END-HEADER' line in the first {len(head)} bytes")
    start = head.find(b"\n", mark) + 1 or len(head)
    source = None
    for line in head[:mark].decode("ascii", "replace").splitlines():
        if line.startswith(("#Source", "#-Source")) and ":" in line:
            source = line.split(":", 1)[1].strip()
            break
    return version, source, start


def _sensor(
    source: str | None, width: int | None, height: int | None, array: np.ndarray, path: Path
) -> tuple[int, int, str]:
    camera = (source or "").upper().replace(" ", "")
    for name, size in SENSORS.items():
        if camera.startswith(name):
            return size[0], size[1], "header"
    if width is not None and height is not None:
        return int(width), int(height), "caller"
    if not len(array):
        raise EventError(
            f"{path}: no events and no known camera in the header (give the width and height)"
        )
    wide, high = int(array["x"].max()) + 1, int(array["y"].max()) + 1
    check_sensor(wide, high, f"{path}: the events' coordinates")
    return wide, high, "largest coordinates"
