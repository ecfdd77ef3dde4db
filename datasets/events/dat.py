"""Prophesee DAT: after the `%` header, one byte event type (0, Event2d, or 12, EventCd, as
Metavision and faery write it: the same CD record) and one byte event size (8), then
8-byte little-endian records: u32 t (µs), u32 with x [13:0], y [27:14], p [31:28]. The u32
time wraps after 2^32 µs (71.6 min): a drop of more than 2^31 µs is read as a wrap."""

from __future__ import annotations

import numpy as np
from numba import njit

from .events import EVENT_DTYPE

RECORD = np.dtype([("t", "<u4"), ("data", "<u4")])
CD_TYPE, CD_SIZE = 0, 8
"""What our writer writes: Event2d (0), the CD record every reader knows, 8 bytes."""
CD_TYPES = {0: "Event2d", 12: "EventCd"}
"""Event types whose records are CD events (Prophesee's DAT documentation)."""
OTHER_TYPES = {14: "EventExtTrigger (external triggers)"}


START = (0, -1)
"""The decoder's state before the first record: (clock wraps, last timestamp)."""


@njit(cache=True)
def _decode(records, out, state):
    """Decode from `state` (see START), leaving in it the state after the last record."""
    wraps, last = state[0], state[1]
    back, bad, width, height = -1, -1, 0, 0
    for i in range(records.size // 2):
        t = np.int64(records[2 * i]) + (wraps << 32)
        if t < last - 2**31:  # the u32 clock wrapped
            wraps += 1
            t += np.int64(1) << 32
        if t < last and back < 0:
            back = i
        last = t
        data = np.int64(records[2 * i + 1])
        x, y, p = data & 0x3FFF, (data >> 14) & 0x3FFF, data >> 28
        if p > 1 and bad < 0:
            bad = i
        out[i].x, out[i].y, out[i].t, out[i].p = x, y, t, p
        width, height = max(width, x + 1), max(height, y + 1)
    state[0], state[1] = wraps, last
    return back, bad, width, height


def decode(
    payload: bytes | np.ndarray, state: np.ndarray | None = None
) -> tuple[np.ndarray, int, int, int, int]:
    """(events, index of the first record going back in time or −1, of the first with a
    polarity other than 0 or 1 or −1, largest x + 1, largest y + 1); payload: whole
    records after the type and size bytes; `state` (an int64 array, START when None) is
    where a previous chunk left the decoder, and is updated."""
    records = np.frombuffer(payload, "<u4")
    out = np.empty(records.size // 2, EVENT_DTYPE)
    state = np.array(START, np.int64) if state is None else state
    back, bad, width, height = _decode(records, out, state)
    return out, back, bad, width, height


def encode(events: np.ndarray) -> bytes:
    records = np.empty(len(events), RECORD)
    records["t"] = events["t"] & 0xFFFFFFFF
    records["data"] = (
        events["x"].astype(np.uint32)
        | (events["y"].astype(np.uint32) << 14)
        | (events["p"].astype(np.uint32) << 28)
    )
    return bytes([CD_TYPE, CD_SIZE]) + records.tobytes()
