"""Prophesee EVT 2.0: 32-bit little-endian words, type in bits [31:28].

CD_OFF (0x0) / CD_ON (0x1): timestamp LSBs [27:22], x [21:11], y [10:0]; EVT_TIME_HIGH
(0x8): [27:0] = t >> 6, so t = (time_high << 6) | lsb (µs). EXT_TRIGGER (0xA), OTHERS (0xE)
and CONTINUED (0xF) carry no CD event and are counted as skipped words; every other type is
reserved, and a reserved word is corrupt data (its index is returned)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .events import EVENT_DTYPE

TIME_HIGH = 0x8
VENDOR = (0xA, 0xE, 0xF)
"""EXT_TRIGGER, OTHERS, CONTINUED: documented words without a CD event."""


START = (0, -1)
"""The decoder's state before the first word: (time high, last timestamp)."""


@njit(cache=True)
def _decode(words, out, state):
    """Decode from `state` (see START), leaving in it the state after the last word."""
    high, last = state[0], state[1]
    n, back, skipped, width, height, reserved = 0, -1, 0, 0, 0, -1
    for i in range(words.size):
        w = np.int64(words[i])
        kind = w >> 28
        if kind <= 1:
            ts = (high << 6) | ((w >> 22) & 0x3F)
            if ts < last and back < 0:
                back = i
            last = ts
            x, y = (w >> 11) & 0x7FF, w & 0x7FF
            out[n].x, out[n].y, out[n].t, out[n].p = x, y, ts, kind
            width, height = max(width, x + 1), max(height, y + 1)
            n += 1
        elif kind == TIME_HIGH:
            high = w & 0x0FFFFFFF
        elif kind in VENDOR:
            skipped += 1
        elif reserved < 0:
            reserved = i
    state[0], state[1] = high, last
    return n, back, skipped, width, height, reserved


def decode(
    payload: bytes | np.ndarray, state: np.ndarray | None = None
) -> tuple[np.ndarray, int, int, int, int, int]:
    """(events, index of the first word whose event goes back in time or −1, skipped words,
    largest x + 1, largest y + 1, index of the first word of a reserved type or −1).
    `payload` must hold whole 4-byte words; `state` (an int64 array, START when None) is
    where a previous chunk left the decoder, and is updated."""
    words = np.frombuffer(payload, "<u4")
    out = np.empty(words.size, EVENT_DTYPE)
    state = np.array(START, np.int64) if state is None else state
    n, back, skipped, width, height, reserved = _decode(words, out, state)
    return out[:n], back, skipped, width, height, reserved


@njit(cache=True)
def _encode(x, y, t, p, out):
    n, high = 0, -1
    for i in range(t.size):
        h = t[i] >> 6
        if h != high:
            out[n] = (TIME_HIGH << 28) | h
            n += 1
            high = h
        out[n] = (np.int64(p[i]) << 28) | ((t[i] & 0x3F) << 22) | (np.int64(x[i]) << 11) | y[i]
        n += 1
    return n


def encode(events: np.ndarray) -> bytes:
    """The words of `events` (t non-decreasing, t < 2^34 µs, x and y < 2048)."""
    out = np.empty(2 * len(events), np.int64)
    n = _encode(events["x"], events["y"], events["t"], events["p"], out)
    return out[:n].astype("<u4").tobytes()
