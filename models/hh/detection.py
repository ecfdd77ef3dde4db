"""Spikes of one cell in a recording: spontaneous ones, in the recording's quiet spans
(quiet.py: before the first pulse and between pulses) or in a separate spontaneous
recording, by threshold on the channel where the cell is largest, refined by matching the
electrical image that gives; evoked ones after each stimulation pulse by matching that
image channel by channel (matched_filter.py), once the stimulation artefact is removed
(artefacts.py)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...datasets.mea.recording import Recording, Stimulation, TraceSource
from .artefacts import ArtefactHandling, Artefacts, remove_artefacts
from .matched_filter import MatchedFilter
from .quiet import first_quiet, inside, quiet_samples, quiet_spans, window_starts

MAD_TO_SD = 1 / 0.6745
"""A Gaussian's standard deviation per median absolute deviation."""
SPIKE_LIKE = 0.5
"""A quiet-recording window scoring past this fraction of the way from the quiet windows'
median score to the median of the cell's own spikes holds a spike of the cell that its
spike list missed (a sorted unit lacks some of its cell's spikes); such windows are left
out when the detection threshold is set."""
OWN_SPIKES = 30
"""The cell's own spikes scored to place SPIKE_LIKE (at most this many, evenly taken)."""


@dataclass(frozen=True)
class SpontaneousSpikes:
    """samples: trough sample of each spike on `channel`; noise_uv: per-channel noise SD;
    recording: the recording they are samples of (the stimulation recording, or a
    separate spontaneous one)."""

    samples: np.ndarray
    channel: int
    noise_uv: np.ndarray
    recording: Recording


def spontaneous_spikes(
    recording: Recording,
    before: int,
    after: int,
    threshold_sd: float = 5.0,
    dead_ms: float = 1.0,
    chunk_s: float = 10.0,
    channels: int = 6,
) -> SpontaneousSpikes:
    """The cell's spikes in the quiet spans of `recording` (quiet.py), in two passes:
    troughs below −threshold_sd noise SDs (MAD estimate over the first chunk_s of quiet
    recording) on the channel whose 0.1th percentile is lowest in SDs give a first
    electrical image (`before` + `after` samples); then that image on its `channels`
    deepest channels is matched against the quiet recording (noise-weighted
    cross-correlation, 1 for a copy of the image, 0 for noise), and every peak above 0.5 at
    least dead_ms from a higher one, its window inside a span, is a spike (its
    reference-channel trough sample)."""
    from .features import electrical_image

    spans = quiet_spans(recording)
    if quiet_samples(spans, 0) < recording.sampling_hz * 0.1:
        raise ValueError(
            "less than 100 ms of quiet recording (before and between pulses): no "
            "spontaneous spikes; give a spontaneous recording of the same array"
        )
    head, noise = _quiet_head(recording, spans, chunk_s)
    channel = int(np.argmin(np.percentile(head, 0.1, axis=0) / noise))
    dead = max(1, round(dead_ms * 1e-3 * recording.sampling_hz))
    step = round(chunk_s * recording.sampling_hz)
    level = -threshold_sd * noise[channel]
    first = _peaks(
        lambda a, b: -recording.get_traces(a, b, [channel])[:, 0], spans, step, -level, dead
    )
    first = first[inside(spans, first, before, after)]
    if len(first) < 3:
        return SpontaneousSpikes(first, channel, noise, recording)
    image = electrical_image(recording, first, before, after)
    strongest = np.argsort(image.min(axis=1))[:channels]
    template = image[strongest] / noise[strongest, None] ** 2
    norm = float((image[strongest] * template).sum())
    width = template.shape[1]

    def score(a: int, b: int) -> np.ndarray:
        from scipy.signal import correlate

        data = recording.get_traces(a, b + width, strongest).T
        full = sum(correlate(d, t, mode="valid") for d, t in zip(data, template, strict=True))
        return np.asarray(full)[: b - a] / norm

    matched = spans.copy()
    matched[:, 1] -= width  # a window starting before this ends inside its span
    found = _peaks(score, matched[matched[:, 1] > matched[:, 0]], step, 0.5, dead) + before
    return SpontaneousSpikes(found, channel, noise, recording)


def given_spikes(
    recording: Recording, samples: np.ndarray, before: int, after: int, chunk_s: float = 10.0
) -> SpontaneousSpikes:
    """A cell's spontaneous spikes as a spike sorter found them (`samples`, each near the
    spike's trough), in the form spontaneous_spikes gives: those whose whole window
    (`before` + `after` samples) lies in a quiet span, the channel where their mean
    is deepest, and per-channel noise (MAD) from the first chunk_s of quiet recording."""
    from .features import electrical_image

    spans = quiet_spans(recording)
    noise = _quiet_noise(recording, spans, chunk_s)
    kept = np.sort(np.asarray(samples, np.int64))
    kept = kept[inside(spans, kept, before, after)]
    if not len(kept):
        return SpontaneousSpikes(kept, 0, noise, recording)
    channel = int(electrical_image(recording, kept, before, after).min(axis=1).argmin())
    return SpontaneousSpikes(kept, channel, noise, recording)


def _quiet_head(
    recording: Recording, spans: np.ndarray, chunk_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """The first chunk_s of quiet recording and each channel's noise SD there (MAD
    estimate, at least 1e-9 µV)."""
    head = first_quiet(recording, spans, chunk_s)
    noise = np.median(np.abs(head - np.median(head, axis=0)), axis=0) * MAD_TO_SD
    return head, np.maximum(noise, 1e-9)


_NOISE: weakref.WeakKeyDictionary[TraceSource, dict[tuple[Any, ...], np.ndarray]] = (
    weakref.WeakKeyDictionary()
)
"""Each recording's quiet noise, kept while its samples are: every sorted unit of one
recording asks for the same (the medians of 10 s of 512 channels take 5 s)."""


def _quiet_noise(recording: Recording, spans: np.ndarray, chunk_s: float) -> np.ndarray:
    """_quiet_head's noise, computed once per source, quiet spans and length."""
    key = (spans.tobytes(), chunk_s, recording.gain_uv, recording.samples)
    known = _NOISE.setdefault(recording.source, {})
    if key not in known:
        known[key] = _quiet_head(recording, spans, chunk_s)[1]
    return known[key]


def _peaks(
    signal: Callable[[int, int], np.ndarray],
    spans: np.ndarray,
    step: int,
    level: float,
    dead: int,
) -> np.ndarray:
    """Samples of local maxima of signal(a, b) (values for samples a..b−1, read in steps
    inside each span [start, end) of `spans`) above `level`, each the highest within
    `dead` samples."""
    samples, values = [], []
    for first, end in spans.tolist():
        for start in range(first, end, step):
            a, b = max(first, start - 1), min(end, start + step + 1)
            trace = signal(a, b)
            inner = trace[1:-1]
            peaks = np.flatnonzero((inner > level) & (inner >= trace[:-2]) & (inner > trace[2:]))
            samples.append(peaks + a + 1)
            values.append(inner[peaks])
    found: list[tuple[int, float]] = []
    for s, v in zip(np.concatenate(samples or [[]]), np.concatenate(values or [[]]), strict=True):
        if found and s - found[-1][0] < dead:
            if v > found[-1][1]:
                found[-1] = (int(s), float(v))
        else:
            found.append((int(s), float(v)))
    return np.array([f[0] for f in found], dtype=np.int64)


class Windows:
    """Windows of `width` samples of some channels, served from chunks of about `chunk_s`
    read at once: a recording preprocessed through SpikeInterface pays its filters'
    margins and a common reference over every channel once per chunk, not per window.
    Starts asked in increasing order read each chunk once."""

    def __init__(
        self, recording: Recording, channels: np.ndarray, width: int, chunk_s: float = 1.0
    ) -> None:
        self.recording, self.channels, self.width = recording, channels, width
        self.chunk = max(width, round(chunk_s * recording.sampling_hz))
        self.start, self.block = 0, np.zeros((0, len(channels)), np.float32)

    def __call__(self, start: int) -> np.ndarray:
        """(width, channels) µV from sample `start` (inside the recording)."""
        if not self.start <= start <= self.start + len(self.block) - self.width:
            end = min(self.recording.samples, start + self.chunk)
            self.start, self.block = start, self.recording.get_traces(start, end, self.channels)
        offset = start - self.start
        return self.block[offset : offset + self.width]


@dataclass(frozen=True)
class EvokedSpikes:
    """spiked: (events,) bool, whether the cell spiked after each stimulation pulse;
    threshold: the matched-filter score above which a window is a spike; artefacts: what
    artefact removal estimated (None when it was not asked for); unlisted: quiet windows
    left out of the threshold as holding a spike of the cell missing from its list."""

    spiked: np.ndarray
    threshold: float
    artefacts: Artefacts | None
    unlisted: int = 0


def evoked_spikes(
    recording: Recording,
    image: np.ndarray,
    spontaneous: SpontaneousSpikes,
    window_ms: float = 3.0,
    channels: int = 6,
    half_ms: float = 0.5,
    null_windows: int = 300,
    seed: int = 0,
    raw: Recording | None = None,
    artefacts: ArtefactHandling = "remove",
    mask_ms: float = 0.25,
) -> EvokedSpikes:
    """Whether the cell spiked after each stimulation pulse of `recording` (the traces
    spikes are detected on).

    The window from half_ms before each pulse to window_ms after it is scored by the
    matched filter (matched_filter.py) built from `image` (channels, samples) µV on its
    `channels` strongest channels; a pulse counts as a spike when its score exceeds the
    largest among `null_windows` windows of quiet recording that hold no spontaneous
    spike (taken from the recording the spontaneous spikes are of: `recording`'s quiet
    spans, or a separate spontaneous recording of the same array). Unless `artefacts` is
    'keep', each window first loses the stimulation artefact, estimated jointly with the
    spikes (artefacts.py; 'linear': scaled linearly with current, without departures); `raw`
    (default `recording`): the unfiltered traces, where amplifier saturation shows
    (mask_ms either side of it left out)."""
    fs = recording.sampling_hz
    half = max(1, round(half_ms * 1e-3 * fs))
    matched = MatchedFilter(image, spontaneous.noise_uv, channels, half)
    width = round(window_ms * 1e-3 * fs) + 2 * half
    windows = Windows(recording, matched.channels, width)

    quiet = spontaneous.recording
    spans = quiet_spans(quiet)
    room = quiet_samples(spans, width)
    rng = np.random.default_rng(seed)
    candidates = window_starts(spans, width, rng.integers(0, max(1, room), 4 * null_windows))
    gaps = (
        np.abs(candidates[:, None] - spontaneous.samples[None])
        if len(spontaneous.samples)
        else None
    )
    far = candidates if gaps is None else candidates[(gaps > width + image.shape[1]).all(axis=1)]
    if room <= 0 or len(far) < 10:
        raise ValueError(
            "too little quiet recording without spikes to calibrate evoked-spike detection"
        )
    own = _own_starts(image, spontaneous, half, spans, width)
    quiet_windows = windows if quiet is recording else Windows(quiet, matched.channels, width)
    threshold, unlisted = _threshold(matched, quiet_windows, np.sort(far[:null_windows]), own)

    starts = np.array(
        [max(0, round(t * fs) - half) for t in recording.stimulation.time_s], dtype=np.int64
    )  # a trough right after the pulse still matches
    margin = max(0, round(mask_ms * 1e-3 * fs))
    whole = (starts >= margin) & (starts + width + margin <= recording.samples)
    spiked = np.zeros(len(starts), bool)
    if not whole.any():
        return EvokedSpikes(spiked, threshold, None, unlisted)
    order = np.argsort(starts[whole])
    kept = np.flatnonzero(whole)[order]
    block = np.zeros((len(kept), width, len(matched.channels)))
    for row, k in enumerate(kept):
        block[row] = windows(int(starts[k]))
    if artefacts == "keep":
        spiked[kept] = matched.scores(block)[0] > threshold
        return EvokedSpikes(spiked, threshold, None, unlisted)
    unfiltered = Windows(raw or recording, matched.channels, width + 2 * margin)
    edges = np.stack([unfiltered(int(starts[k]) - margin) for k in kept]).astype(float)
    stimulation = _events(recording.stimulation, kept)
    spiked[kept], removed = remove_artefacts(
        block, edges, stimulation, matched, threshold, margin, linear=artefacts == "linear"
    )
    return EvokedSpikes(spiked, threshold, removed, unlisted)


def _own_starts(
    image: np.ndarray, spontaneous: SpontaneousSpikes, half: int, spans: np.ndarray, width: int
) -> np.ndarray:
    """Window starts that put up to OWN_SPIKES of the cell's own spontaneous spikes where an
    evoked spike right after a pulse would sit (its trough `half` + the image's trough
    offset into the window), each window inside a quiet span."""
    trough = int(image[spontaneous.channel].argmin())
    starts = spontaneous.samples - trough - half
    starts = starts[inside(spans, starts, 0, width)]
    pick = np.unique(np.linspace(0, len(starts) - 1, min(OWN_SPIKES, len(starts))).astype(int))
    return starts[pick] if len(starts) else starts


def _threshold(
    matched: MatchedFilter, windows: Windows, null: np.ndarray, own: np.ndarray
) -> tuple[float, int]:
    """(the largest score of the quiet windows at `null` that hold no spike of the cell,
    how many were left out as holding one): a window past SPIKE_LIKE of the way from the
    quiet median to the median score of the cell's own spikes (windows at `own`) is one."""
    starts = np.concatenate([null, own])
    order = np.argsort(starts, kind="stable")
    scored = np.empty(len(starts))
    scored[order] = matched.scores(
        np.stack([windows(int(starts[k])) for k in order]).astype(float)
    )[0]
    quiet, spikes = scored[: len(null)], scored[len(null) :]
    if len(spikes) == 0:
        return float(quiet.max()), 0
    centre = float(np.median(quiet))
    cut = centre + SPIKE_LIKE * (float(np.median(spikes)) - centre)
    clean = quiet[quiet <= cut] if np.median(spikes) > centre else quiet
    return float(clean.max()), len(quiet) - len(clean)


def _events(stimulation: Stimulation, chosen: np.ndarray) -> Stimulation:
    """The events `chosen` of `stimulation`, in that order."""
    weights = stimulation.weights
    return Stimulation(
        stimulation.time_s[chosen],
        tuple(stimulation.electrodes[k] for k in chosen),
        stimulation.current_ua[chosen],
        tuple(stimulation.shape[k] for k in chosen),
        None if weights is None else tuple(weights[k] for k in chosen),
    )
