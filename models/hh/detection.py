"""Spikes of one cell in a recording: spontaneous ones by threshold on the channel where
the cell is largest, refined by matching the electrical image that gives; evoked ones
after each stimulation pulse by matching that image channel by channel (matched_filter.py),
once the stimulation artefact is removed (artefacts.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...datasets.mea.recording import Recording, Stimulation
from .artefacts import Artefacts, remove_artefacts
from .matched_filter import MatchedFilter

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
    """samples: trough sample of each spike on `channel`; noise_uv: per-channel noise SD."""

    samples: np.ndarray
    channel: int
    noise_uv: np.ndarray


def quiet_end(recording: Recording, margin_s: float = 0.005) -> int:
    """The sample where stimulation starts (less a margin), or the recording's end."""
    times = recording.stimulation.time_s
    if not len(times):
        return recording.samples
    return max(0, int((times.min() - margin_s) * recording.sampling_hz))


def spontaneous_spikes(
    recording: Recording,
    before: int,
    after: int,
    threshold_sd: float = 5.0,
    dead_ms: float = 1.0,
    chunk_s: float = 10.0,
    channels: int = 6,
) -> SpontaneousSpikes:
    """The cell's spikes before stimulation starts, in two passes: troughs below
    −threshold_sd noise SDs (MAD estimate) on the channel whose 0.1th percentile is lowest
    in SDs give a first electrical image (`before` + `after` samples); then that image on
    its `channels` deepest channels is matched against the recording (noise-weighted
    cross-correlation, 1 for a copy of the image, 0 for noise), and every peak above 0.5 at
    least dead_ms from a higher one is a spike (its reference-channel trough sample)."""
    from .features import electrical_image

    end = quiet_end(recording)
    if end < recording.sampling_hz * 0.1:
        raise ValueError("less than 100 ms of recording before stimulation: no spontaneous spikes")
    head, noise = _quiet_head(recording, end, chunk_s)
    channel = int(np.argmin(np.percentile(head, 0.1, axis=0) / noise))
    dead = max(1, round(dead_ms * 1e-3 * recording.sampling_hz))
    step = round(chunk_s * recording.sampling_hz)
    level = -threshold_sd * noise[channel]
    first = _peaks(
        lambda a, b: -recording.get_traces(a, b, [channel])[:, 0], end, step, -level, dead
    )
    first = first[(first >= before) & (first + after <= end)]
    if len(first) < 3:
        return SpontaneousSpikes(first, channel, noise)
    image = electrical_image(recording, first, before, after)
    strongest = np.argsort(image.min(axis=1))[:channels]
    template = image[strongest] / noise[strongest, None] ** 2
    norm = float((image[strongest] * template).sum())

    def score(a: int, b: int) -> np.ndarray:
        from scipy.signal import correlate

        data = recording.get_traces(a, min(end, b + template.shape[1]), strongest).T
        full = sum(correlate(d, t, mode="valid") for d, t in zip(data, template, strict=True))
        full = full[: b - a]
        return np.concatenate([full, np.full(b - a - len(full), -np.inf)]) / norm

    found = _peaks(score, end - template.shape[1], step, 0.5, dead) + before
    return SpontaneousSpikes(found, channel, noise)


def given_spikes(
    recording: Recording, samples: np.ndarray, before: int, after: int, chunk_s: float = 10.0
) -> SpontaneousSpikes:
    """A cell's spontaneous spikes as a spike sorter found them (`samples`, each near the
    spike's trough), in the form spontaneous_spikes gives: those whose whole window
    (`before` + `after` samples) lies before stimulation, the channel where their mean
    is deepest, and per-channel noise (MAD) from the quiet recording's first chunk_s."""
    from .features import electrical_image

    end = quiet_end(recording)
    _, noise = _quiet_head(recording, end, chunk_s)
    kept = np.sort(samples[(samples >= before) & (samples + after <= end)]).astype(np.int64)
    if not len(kept):
        return SpontaneousSpikes(kept, 0, noise)
    channel = int(electrical_image(recording, kept, before, after).min(axis=1).argmin())
    return SpontaneousSpikes(kept, channel, noise)


def _quiet_head(recording: Recording, end: int, chunk_s: float) -> tuple[np.ndarray, np.ndarray]:
    """The first chunk_s of the quiet recording (samples before `end`) and each channel's
    noise SD there (MAD estimate, at least 1e-9 µV)."""
    head = recording.get_traces(0, min(end, round(chunk_s * recording.sampling_hz)))
    noise = np.median(np.abs(head - np.median(head, axis=0)), axis=0) * MAD_TO_SD
    return head, np.maximum(noise, 1e-9)


def _peaks(signal: Any, end: int, step: int, level: float, dead: int) -> np.ndarray:
    """Samples of local maxima of signal(a, b) (values for samples a..b−1, read in steps)
    above `level`, each the highest within `dead` samples."""
    samples, values = [], []
    for start in range(0, max(end, 0), step):
        a, b = max(0, start - 1), min(end, start + step + 1)
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
    artefacts: bool = True,
    mask_ms: float = 0.25,
) -> EvokedSpikes:
    """Whether the cell spiked after each stimulation pulse of `recording` (the traces
    spikes are detected on).

    The window from half_ms before each pulse to window_ms after it is scored by the
    matched filter (matched_filter.py) built from `image` (channels, samples) µV on its
    `channels` strongest channels; a pulse counts as a spike when its score exceeds the
    largest among `null_windows` windows of the quiet recording that hold no spontaneous
    spike. With `artefacts`, each window first loses the stimulation artefact,
    estimated jointly with the spikes (artefacts.py); `raw` (default `recording`): the
    unfiltered traces, where amplifier saturation shows (mask_ms either side of it left
    out)."""
    fs = recording.sampling_hz
    half = max(1, round(half_ms * 1e-3 * fs))
    matched = MatchedFilter(image, spontaneous.noise_uv, channels, half)
    width = round(window_ms * 1e-3 * fs) + 2 * half
    windows = Windows(recording, matched.channels, width)

    quiet = quiet_end(recording) - width
    rng = np.random.default_rng(seed)
    candidates = rng.integers(0, max(1, quiet), 4 * null_windows)
    gaps = (
        np.abs(candidates[:, None] - spontaneous.samples[None])
        if len(spontaneous.samples)
        else None
    )
    far = candidates if gaps is None else candidates[(gaps > width + image.shape[1]).all(axis=1)]
    if quiet <= 0 or len(far) < 10:
        raise ValueError(
            "too little quiet recording without spikes to calibrate evoked-spike detection"
        )
    threshold, unlisted = _threshold(
        matched, windows, np.sort(far[:null_windows]), _own_starts(image, spontaneous, half, quiet)
    )

    starts = np.array(
        [max(0, round(t * fs) - half) for t in recording.stimulation.time_s], dtype=np.int64
    )  # a trough right after the pulse still matches
    margin = max(0, round(mask_ms * 1e-3 * fs))
    inside = (starts >= margin) & (starts + width + margin <= recording.samples)
    spiked = np.zeros(len(starts), bool)
    if not inside.any():
        return EvokedSpikes(spiked, threshold, None, unlisted)
    order = np.argsort(starts[inside])
    kept = np.flatnonzero(inside)[order]
    block = np.zeros((len(kept), width, len(matched.channels)))
    for row, k in enumerate(kept):
        block[row] = windows(int(starts[k]))
    if not artefacts:
        spiked[kept] = matched.scores(block)[0] > threshold
        return EvokedSpikes(spiked, threshold, None, unlisted)
    unfiltered = Windows(raw or recording, matched.channels, width + 2 * margin)
    edges = np.stack([unfiltered(int(starts[k]) - margin) for k in kept]).astype(float)
    stimulation = _events(recording.stimulation, kept)
    spiked[kept], removed = remove_artefacts(block, edges, stimulation, matched, threshold, margin)
    return EvokedSpikes(spiked, threshold, removed, unlisted)


def _own_starts(
    image: np.ndarray, spontaneous: SpontaneousSpikes, half: int, quiet: int
) -> np.ndarray:
    """Window starts that put up to OWN_SPIKES of the cell's own spontaneous spikes where an
    evoked spike right after a pulse would sit (its trough `half` + the image's trough
    offset into the window)."""
    trough = int(image[spontaneous.channel].argmin())
    starts = spontaneous.samples - trough - half
    starts = starts[(starts >= 0) & (starts <= quiet)]
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
