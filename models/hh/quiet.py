"""Where a recording is quiet: the spans of samples that no stimulation pulse reaches,
before the first pulse and between pulses, each starting AFTER_PULSE_MS after a pulse
(its artefact and the spikes it evokes) and ending BEFORE_PULSE_MS before the next.
Spontaneous spikes are found, and spike detection is calibrated, in these spans only.

>>> from substrates.datasets.mea.recording import ArraySource, Recording, Stimulation
>>> pulses = Stimulation(np.array([0.5, 0.6, 0.605]), ((1,), (1,), (1,)), np.ones(3),
...                      ("biphasic",) * 3)
>>> r = Recording(ArraySource(np.zeros((20000, 2), np.float32)), 20000, 20000.0, 1.0,
...               np.arange(2), np.zeros((2, 2)), pulses)
>>> quiet_spans(r).tolist()  # samples [start, end): 0 to 0.495 s, 0.51 to 0.595 s, 0.615 s on
[[0, 9900], [10200, 11900], [12300, 20000]]
>>> quiet_samples(quiet_spans(r), 100)  # a 100-sample window fits in this many places
19000
"""

from __future__ import annotations

import numpy as np

from ...datasets.mea.recording import Recording

AFTER_PULSE_MS = 10.0
"""A quiet span starts this long after a pulse (ms): past its artefact (the amplifier's
recovery lasts a few ms) and the evoked spikes that evoked_spikes scores (3 ms)."""
BEFORE_PULSE_MS = 5.0
"""A quiet span ends this long before the next pulse (ms)."""


def quiet_spans(
    recording: Recording,
    after_pulse_ms: float = AFTER_PULSE_MS,
    before_pulse_ms: float = BEFORE_PULSE_MS,
) -> np.ndarray:
    """(spans, 2) int64 sample ranges [start, end) of `recording` that no pulse reaches,
    in order, none empty: the whole recording when it has no stimulation."""
    fs, samples = recording.sampling_hz, recording.samples
    times = np.sort(recording.stimulation.time_s)
    starts = np.concatenate([[0], np.round((times + after_pulse_ms * 1e-3) * fs)])
    ends = np.concatenate([np.round((times - before_pulse_ms * 1e-3) * fs), [samples]])
    spans = np.stack([np.clip(starts, 0, samples), np.clip(ends, 0, samples)], axis=1)
    return spans[spans[:, 1] > spans[:, 0]].astype(np.int64)


def quiet_samples(spans: np.ndarray, width: int) -> int:
    """How many windows of `width` samples start inside `spans` and end before the span's
    last sample (the start s of a window in [a, b) satisfies a <= s < b - width)."""
    return int(np.maximum(spans[:, 1] - spans[:, 0] - width, 0).sum())


def locate(lengths: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(span, offset): where each of `positions` falls when spans of `lengths` samples are
    laid end to end — the span's index and the position's offset within it (positions
    below lengths.sum(); a span of length 0 holds none)."""
    first = np.concatenate([[0], np.cumsum(lengths)])
    span = np.searchsorted(first, positions, side="right") - 1
    return span, positions - first[span]


def window_starts(spans: np.ndarray, width: int, positions: np.ndarray) -> np.ndarray:
    """The window starts that `positions` (0 … quiet_samples(spans, width) − 1) number:
    windows of `width` samples counted span by span, so a recording quiet from sample 0
    to `end` maps each position to itself."""
    span, offset = locate(np.maximum(spans[:, 1] - spans[:, 0] - width, 0), positions)
    return spans[span, 0] + offset


def inside(spans: np.ndarray, samples: np.ndarray, before: int, after: int) -> np.ndarray:
    """(samples,) bool: whether the window from before samples before each of `samples` to
    after samples after it lies inside one quiet span."""
    samples = np.asarray(samples, np.int64)
    span = np.searchsorted(spans[:, 0], samples - before, side="right") - 1
    found = span >= 0
    k = np.clip(span, 0, None)
    return found & (samples - before >= spans[k, 0]) & (samples + after <= spans[k, 1])


def first_quiet(recording: Recording, spans: np.ndarray, seconds: float) -> np.ndarray:
    """(samples, channels) µV: the first `seconds` of quiet recording, span after span."""
    want = round(seconds * recording.sampling_hz)
    blocks = []
    for a, b in spans:
        take = min(int(b - a), want)
        blocks.append(recording.get_traces(int(a), int(a) + take))
        want -= take
        if want <= 0:
            break
    return np.concatenate(blocks) if blocks else np.zeros((0, recording.channels), np.float32)
