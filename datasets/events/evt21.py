"""Prophesee EVT 2.1: 64-bit little-endian words, type in bits [63:60], events of one
polarity vectorised over 32 pixels of a row (docs.prophesee.ai, "EVT 2.1 Format"; OpenEB's
`evt21_event_types.h`).

EVT_NEG (0x0) / EVT_POS (0x1): timestamp LSBs [59:54], x [53:43], y [42:32], valid [31:0]
— bit i set is an event at (x + i, y); EVT_TIME_HIGH (0x8): [59:32] = t >> 6, so
t = (time_high << 6) | lsb (µs). EXT_TRIGGER (0xA), OTHERS (0xE) and CONTINUED (0xF) carry
no CD event and are counted as skipped words; every other type is reserved, and a
reserved word is corrupt data (its index is returned). The IMX636 writes the `legacy` layout
(header `format EVT21;…;endianness=legacy`): the two 32-bit halves swapped, so the type
sits in bits [31:28] and the valid mask in [63:32]."""

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
def _decode(words, legacy, out, state):
    """Decode from `state` (see START), leaving in it the state after the last word."""
    high, last = state[0], state[1]
    n, back, skipped, width, height, reserved = 0, -1, 0, 0, 0, -1
    for i in range(words.size):
        w = np.uint64(words[i])
        if legacy:  # the halves swapped: back to the standard layout
            w = (w >> np.uint64(32)) | ((w & np.uint64(0xFFFFFFFF)) << np.uint64(32))
        kind = np.int64(w >> np.uint64(60))
        if kind <= 1:
            ts = (high << 6) | np.int64((w >> np.uint64(54)) & np.uint64(0x3F))
            if ts < last and back < 0:
                back = i
            last = ts
            x0 = np.int64((w >> np.uint64(43)) & np.uint64(0x7FF))
            y = np.int64((w >> np.uint64(32)) & np.uint64(0x7FF))
            valid = np.int64(w & np.uint64(0xFFFFFFFF))
            for bit in range(32):
                if (valid >> bit) & 1:
                    x = x0 + bit
                    out[n].x, out[n].y, out[n].t, out[n].p = x, y, ts, kind
                    width, height = max(width, x + 1), max(height, y + 1)
                    n += 1
        elif kind == TIME_HIGH:
            high = np.int64((w >> np.uint64(32)) & np.uint64(0x0FFFFFFF))
        elif kind in VENDOR:
            skipped += 1
        elif reserved < 0:
            reserved = i
    state[0], state[1] = high, last
    return n, back, skipped, width, height, reserved


def decode(
    payload: bytes | np.ndarray, legacy: bool = False, state: np.ndarray | None = None
) -> tuple[np.ndarray, int, int, int, int, int]:
    """(events, index of the first word whose events go back in time or −1, skipped words,
    largest x + 1, largest y + 1, index of the first word of a reserved type or −1).
    `payload` must hold whole 8-byte words; `state` (an int64 array, START when None) is
    where a previous chunk left the decoder, and is updated."""
    words = np.frombuffer(payload, "<u8")
    mask = np.uint64(0xFFFFFFFF00000000 if legacy else 0xFFFFFFFF)
    out = np.empty(int(np.bitwise_count(words & mask).sum()), EVENT_DTYPE)  # an upper bound
    state = np.array(START, np.int64) if state is None else state
    n, back, skipped, width, height, reserved = _decode(words, legacy, out, state)
    return out[:n], back, skipped, width, height, reserved


@njit(cache=True)
def _encode(x, y, t, p, out):
    """One word per run of events with the same time, row and polarity whose x fall in one
    32-pixel block from the run's first x, in the order given."""
    n, high, i = 0, -1, 0
    while i < t.size:
        h = t[i] >> 6
        if h != high:
            out[n] = (np.uint64(TIME_HIGH) << np.uint64(60)) | (np.uint64(h) << np.uint64(32))
            n += 1
            high = h
        base, valid, j = x[i], np.uint64(0), i
        while (
            j < t.size
            and t[j] == t[i]
            and y[j] == y[i]
            and p[j] == p[i]
            and base <= x[j] < base + 32
            and (valid >> np.uint64(x[j] - base)) & np.uint64(1) == 0
            and (j == i or x[j] > x[j - 1])
        ):
            valid |= np.uint64(1) << np.uint64(x[j] - base)
            j += 1
        out[n] = (
            (np.uint64(p[i]) << np.uint64(60))
            | (np.uint64(t[i] & 0x3F) << np.uint64(54))
            | (np.uint64(base) << np.uint64(43))
            | (np.uint64(y[i]) << np.uint64(32))
            | valid
        )
        n += 1
        i = j
    return n


def encode(events: np.ndarray, legacy: bool = False) -> bytes:
    """The words of `events` (t non-decreasing, t < 2^34 µs, x and y < 2048); events of one
    time, row and polarity at increasing x within 32 pixels share a word, so decoding gives
    them back in the same order."""
    out = np.empty(2 * len(events), np.uint64)
    n = _encode(
        events["x"].astype(np.int64),
        events["y"].astype(np.int64),
        events["t"].astype(np.int64),
        events["p"].astype(np.int64),
        out,
    )
    words = out[:n]
    if legacy:
        words = (words >> np.uint64(32)) | ((words & np.uint64(0xFFFFFFFF)) << np.uint64(32))
    return words.astype("<u8").tobytes()
