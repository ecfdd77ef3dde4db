"""Features of a cell in extracellular data: its electrical image (the spike-triggered mean
waveform on every electrode), per-electrode trough and peak amplitudes (µV), trough-to-peak
widths and trough latencies (ms), and the axonal propagation velocity (m/s) from how the
trough latency grows with distance along the axon."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...datasets.mea.recording import Recording


def electrical_image(
    recording: Recording, spike_samples: np.ndarray, before: int = 20, after: int = 60
) -> np.ndarray:
    """(channels, before + after) µV: the mean of the windows around each spike (spikes too
    close to either end are left out); reads only those windows."""
    spikes = np.asarray(spike_samples)
    spikes = spikes[(spikes >= before) & (spikes + after <= recording.samples)]
    if not spikes.size:
        raise ValueError("no spike with a full window inside the recording")
    total = np.zeros((before + after, recording.channels))
    for s in spikes:
        total += recording.get_traces(int(s) - before, int(s) + after)
    return (total / spikes.size).T


BASELINE_MS = 20.0
"""Each spike's baseline is fitted on spans this long on both sides of its window (ms)."""
MAINS_HZ = (50.0, 60.0)
"""Mains frequencies whose interference the baseline follows (Hz): both, so neither needs
to be known; the fit then costs a little noise where only one is present."""
NOISE_SPIKES = 64
"""The noise SD is estimated from the margins of at most this many spikes."""


def baselined_image(
    recording: Recording,
    spike_samples: np.ndarray,
    before: int = 20,
    after: int = 60,
    baseline_ms: float = BASELINE_MS,
    mains_hz: tuple[float, ...] = MAINS_HZ,
) -> tuple[np.ndarray, np.ndarray]:
    """The electrical image of unfiltered traces, robust to what amplifiers add.

    For each spike and channel, a baseline (a constant, a linear trend, and a sine and a
    cosine at each of `mains_hz`) is fitted by least squares to the `baseline_ms` before
    and after its window and subtracted over the window: DC offsets, slow drift and mains
    interference go, and no filter touches the spike's band. Returns the image
    (channels, before + after) µV and the noise (channels,) µV: the SD of single samples
    about the baselines, from the MAD of the margins' residuals. Spikes whose window does
    not fit in the recording are left out; margins are cut at the recording's ends.

    >>> from substrates.datasets.mea.recording import ArraySource, Recording
    >>> t = np.arange(40000) / 20000.0
    >>> hum = 30 * np.sin(2 * np.pi * 50 * t) + 100 + 20 * t  # offset, drift, mains (µV)
    >>> traces = np.repeat(hum[:, None], 2, axis=1).astype(np.float32)
    >>> spikes = np.arange(2000, 38000, 3001)
    >>> for s in spikes:
    ...     traces[s - 5 : s + 5, 0] -= 80.0  # an 80 µV trough on channel 0
    >>> r = Recording(ArraySource(traces), 40000, 20000.0, 1.0, np.arange(2), np.zeros((2, 2)))
    >>> image, noise = baselined_image(r, spikes, 20, 60)
    >>> bool(abs(image[0].min() + 80) < 0.5 and np.abs(image[1]).max() < 0.5)
    True
    """
    spikes = np.asarray(spike_samples)
    spikes = spikes[(spikes >= before) & (spikes + after <= recording.samples)]
    if not spikes.size:
        raise ValueError("no spike with a full window inside the recording")
    pad = max(1, round(baseline_ms * 1e-3 * recording.sampling_hz))
    width = before + after
    total = np.zeros((width, recording.channels))
    margins = []
    for k, s in enumerate(spikes):
        a, b = max(0, int(s) - before - pad), min(recording.samples, int(s) + after + pad)
        span = recording.get_traces(a, b).astype(np.float64)
        first = int(s) - before - a
        outside = np.r_[0:first, first + width : b - a]
        basis = _baseline_basis(np.arange(a, b) / recording.sampling_hz, mains_hz)
        if len(outside) < 4 * basis.shape[1]:  # too little margin to fit: a constant
            basis = basis[:, :1]
        coef = np.linalg.lstsq(basis[outside], span[outside], rcond=None)[0]
        residual = span - basis @ coef
        total += residual[first : first + width]
        if k < NOISE_SPIKES:
            margins.append(residual[outside])
    pooled = np.concatenate(margins)
    noise = np.median(np.abs(pooled - np.median(pooled, axis=0)), axis=0) / 0.6745
    return (total / spikes.size).T, noise


def _baseline_basis(t_s: np.ndarray, mains_hz: tuple[float, ...]) -> np.ndarray:
    """(samples, 2 + 2·mains) columns: 1, time from the span's centre (s), then a sine and
    a cosine at each mains frequency."""
    centred = t_s - t_s.mean()
    columns = [np.ones_like(t_s), centred]
    for f in mains_hz:
        columns += [np.sin(2 * np.pi * f * t_s), np.cos(2 * np.pi * f * t_s)]
    return np.stack(columns, axis=1)


@dataclass(frozen=True)
class WaveformFeatures:
    """Per channel: trough_uv (most negative), peak_uv (largest after the trough), width_ms
    (trough to that peak), latency_ms (trough time after the spike time)."""

    trough_uv: np.ndarray
    peak_uv: np.ndarray
    width_ms: np.ndarray
    latency_ms: np.ndarray


def waveform_features(image: np.ndarray, sampling_hz: float, before: int = 20) -> WaveformFeatures:
    """Features of an electrical image (channels, samples) whose spike time is `before`."""
    trough = image.argmin(axis=1)
    after = np.where(np.arange(image.shape[1])[None] >= trough[:, None], image, -np.inf)
    peak = after.argmax(axis=1)
    rows = np.arange(image.shape[0])
    ms = 1e3 / sampling_hz
    return WaveformFeatures(
        image[rows, trough], image[rows, peak], (peak - trough) * ms, (trough - before) * ms
    )


def propagation_velocity(
    features: WaveformFeatures, positions_um: np.ndarray, min_trough_uv: float
) -> float:
    """Axonal conduction velocity (m/s): the slope of trough latency against distance along
    the direction the electrodes with troughs below −min_trough_uv spread in."""
    strong = features.trough_uv <= -abs(min_trough_uv)
    if strong.sum() < 3:
        raise ValueError(f"fewer than 3 electrodes with troughs below −{min_trough_uv} µV")
    points = positions_um[strong] - positions_um[strong].mean(axis=0)
    direction = np.linalg.svd(points, full_matrices=False)[2][0]
    distance = points @ direction
    slope = np.polyfit(features.latency_ms[strong], distance, 1)[0]  # µm per ms = mm/s
    return abs(float(slope)) * 1e-3
