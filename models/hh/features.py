"""Features of a cell in extracellular data: its electrical image (the spike-triggered mean
waveform on every electrode), per-electrode trough and peak amplitudes (µV), trough-to-peak
widths and trough latencies (ms), and the axonal propagation velocity (m/s) from how the
trough latency grows with distance along the axon."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...datasets.mea.recording import Recording


def electrical_image(recording: Recording, spike_samples: np.ndarray, before: int = 20,
                     after: int = 60) -> np.ndarray:  # fmt: skip
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


@dataclass(frozen=True)
class WaveformFeatures:
    """Per channel: trough_uv (most negative), peak_uv (largest after the trough), width_ms
    (trough to that peak), latency_ms (trough time after the spike time)."""

    trough_uv: np.ndarray
    peak_uv: np.ndarray
    width_ms: np.ndarray
    latency_ms: np.ndarray


def waveform_features(image: np.ndarray, sampling_hz: float, before: int = 20
                      ) -> WaveformFeatures:  # fmt: skip
    """Features of an electrical image (channels, samples) whose spike time is `before`."""
    trough = image.argmin(axis=1)
    after = np.where(np.arange(image.shape[1])[None] >= trough[:, None], image, -np.inf)
    peak = after.argmax(axis=1)
    rows = np.arange(image.shape[0])
    ms = 1e3 / sampling_hz
    return WaveformFeatures(image[rows, trough], image[rows, peak], (peak - trough) * ms,
                            (trough - before) * ms)  # fmt: skip


def propagation_velocity(features: WaveformFeatures, positions_um: np.ndarray,
                         min_trough_uv: float) -> float:  # fmt: skip
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
