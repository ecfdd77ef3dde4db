"""Prophesee EVT 3.0: 16-bit little-endian words, type in bits [15:12]; the decoder keeps
state (y, polarity, vector base x, time).

EVT_ADDR_Y (0x0): y [10:0]. EVT_ADDR_X (0x2): one event, p [11], x [10:0]. VECT_BASE_X
(0x3): p [11], base x [10:0]. VECT_12 (0x4) / VECT_8 (0x5): a mask, bit k an event at
x = base + k, then base += 12 / 8. EVT_TIME_LOW (0x6) and EVT_TIME_HIGH (0x8): the low and
high 12 bits of a 24-bit µs time base; a TIME_HIGH smaller than the last one is a wrap
(+2^24 µs). A TIME_LOW smaller than the last one with no TIME_HIGH between them is read as
the high part advancing by one: Prophesee streams always send the TIME_HIGH first, so this
never fires on them, while writers that leave TIME_HIGH out (expelliarmus) still decode as
their own reader does. A TIME_HIGH keeps the low part (the spec: it "updates the higher
12-bit portion"; the Rust `evt3` crate clears it instead, which differs only for events sent
between a TIME_HIGH and its TIME_LOW, something cameras do not send). EXT_TRIGGER (0xA),
OTHERS (0xE), CONTINUED_4 (0x7) and CONTINUED_12 (0xF) are counted as skipped; the other
types (0x1, 0x9, 0xB, 0xC, 0xD) are reserved, and a reserved word is corrupt data (its
index is returned)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .events import EVENT_DTYPE

ADDR_Y, ADDR_X, VECT_BASE_X, VECT_12, VECT_8, TIME_LOW, TIME_HIGH = (
    0x0,
    0x2,
    0x3,
    0x4,
    0x5,
    0x6,
    0x8,
)
VENDOR = (0x7, 0xA, 0xE, 0xF)
"""CONTINUED_4, EXT_TRIGGER, OTHERS, CONTINUED_12: documented words without a CD event."""


START = (0, 0, 0, 0, 0, 0, -1, 0)
"""The decoder's state before the first word: (y, vector base x, vector polarity, time low,
time high, wraps, last timestamp, TIME_HIGH sent since the last TIME_LOW)."""


@njit(cache=True)
def _decode(words, out, fill, state):
    """Decode from `state` (see START), leaving in it the state after the last word."""
    yy, base, pol, low, high, wraps, last = (
        state[0],
        state[1],
        state[2],
        state[3],
        state[4],
        state[5],
        state[6],
    )
    high_sent = state[7] != 0
    n, back, skipped, wide, high_y, reserved = 0, -1, 0, 0, 0, -1
    for i in range(words.size):
        w = np.int64(words[i])
        kind = w >> 12
        if kind == ADDR_Y:
            yy = w & 0x7FF
        elif kind in (ADDR_X, VECT_12, VECT_8):
            ts = (wraps << 24) | (high << 12) | low
            if ts < last and back < 0:
                back = i
            last = ts
            if kind == ADDR_X:
                if fill:
                    out[n].x, out[n].y, out[n].t, out[n].p = w & 0x7FF, yy, ts, (w >> 11) & 1
                    wide, high_y = max(wide, (w & 0x7FF) + 1), max(high_y, yy + 1)
                n += 1
                continue
            width = 12 if kind == VECT_12 else 8
            mask = w & ((1 << width) - 1)
            for k in range(width):
                if (mask >> k) & 1:
                    if fill:
                        out[n].x, out[n].y, out[n].t, out[n].p = base + k, yy, ts, pol
                        wide, high_y = max(wide, base + k + 1), max(high_y, yy + 1)
                    n += 1
            base += width
        elif kind == VECT_BASE_X:
            pol, base = (w >> 11) & 1, w & 0x7FF
        elif kind == TIME_LOW:
            new = w & 0xFFF
            if new < low and not high_sent:
                high += 1
                if high == 0x1000:
                    high, wraps = 0, wraps + 1
            low, high_sent = new, False
        elif kind == TIME_HIGH:
            new = w & 0xFFF
            if new < high:
                wraps += 1
            high, high_sent = new, True
        elif kind in VENDOR:
            skipped += 1
        elif reserved < 0:
            reserved = i
    state[0], state[1], state[2], state[3] = yy, base, pol, low
    state[4], state[5], state[6], state[7] = high, wraps, last, high_sent
    return n, back, skipped, wide, high_y, reserved


def decode(
    payload: bytes | np.ndarray, state: np.ndarray | None = None
) -> tuple[np.ndarray, int, int, int, int, int]:
    """(events, index of the first word whose event goes back in time or −1, skipped words,
    largest x + 1, largest y + 1, index of the first word of a reserved type or −1).
    `payload` must hold whole 2-byte words; `state` (an int64 array, START when None) is
    where a previous chunk left the decoder, and is updated."""
    words = np.frombuffer(payload, "<u2")
    state = np.array(START, np.int64) if state is None else state
    n = _decode(words, np.empty(0, EVENT_DTYPE), False, state.copy())[0]
    out = np.empty(n, EVENT_DTYPE)
    _, back, skipped, width, height, reserved = _decode(words, out, True, state)
    return out, back, skipped, width, height, reserved


@njit(cache=True)
def _encode(x, y, t, p, out, fill):
    """TIME_HIGH for every 4096 µs step (as a camera emits them, so wraps are seen), TIME_LOW,
    ADDR_Y when they change, then one ADDR_X per event."""
    n, period, low, yy = 0, -1, -1, -1
    for i in range(t.size):
        target = t[i] >> 12
        if period < 0:
            period = target - 1
        while period < target:
            period += 1
            if fill:
                out[n] = (TIME_HIGH << 12) | (period & 0xFFF)
            n += 1
            low = -1
        if (t[i] & 0xFFF) != low:
            low = t[i] & 0xFFF
            if fill:
                out[n] = (TIME_LOW << 12) | low
            n += 1
        if y[i] != yy:
            yy = y[i]
            if fill:
                out[n] = (ADDR_Y << 12) | yy
            n += 1
        if fill:
            out[n] = (ADDR_X << 12) | (np.int64(p[i]) << 11) | x[i]
        n += 1
    return n


def encode(events: np.ndarray) -> bytes:
    """The words of `events` (t non-decreasing; x and y < 2048)."""
    columns = (events["x"], events["y"], events["t"], events["p"])
    n = _encode(*columns, np.empty(0, np.int64), False)
    out = np.empty(n, np.int64)
    _encode(*columns, out, True)
    return out.astype("<u2").tobytes()
