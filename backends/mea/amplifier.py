"""What an MEA amplifier adds to every channel besides the cell and white noise: a DC
offset, a slow baseline drift and mains interference, and after each stimulation pulse an
artefact that scales with the current and decays over milliseconds. Real recordings
always carry them (electrode polarisation, temperature, the stimulator's charge); the
simulator adds them on request so the fit is tested on what raw files hold."""

from __future__ import annotations

import numpy as np


def baseline_uv(
    samples: int,
    channels: int,
    sampling_hz: float,
    *,
    offset_uv: float,
    drift_uv: float,
    drift_hz: float,
    line_uv: float,
    line_hz: float,
    rng: np.random.Generator,
    first: int = 0,
) -> np.ndarray:
    """(samples, channels) float32 µV from sample `first` on: per channel a DC offset
    drawn uniformly in ±offset_uv; a drift of amplitude drift_uv at drift_hz with a random
    phase per channel; mains interference at line_hz (common phase, as from one source)
    whose amplitude is line_uv times a factor drawn in [0.5, 1.5] per channel. The draws
    come first from `rng`, so blocks made from equal generators join into one baseline.

    >>> b = baseline_uv(20000, 3, 20000.0, offset_uv=100, drift_uv=0, drift_hz=1,
    ...                 line_uv=0, line_hz=50, rng=np.random.default_rng(0))
    >>> bool(np.all(np.abs(b) <= 100) and np.all(b == b[0]))
    True
    """
    t = (first + np.arange(samples)) / sampling_hz
    offsets = rng.uniform(-offset_uv, offset_uv, channels)
    phases = rng.uniform(0, 2 * np.pi, channels)
    scale = rng.uniform(0.5, 1.5, channels)
    out = np.empty((samples, channels), np.float32)
    out[:] = offsets.astype(np.float32)
    if drift_uv:
        out += (drift_uv * np.sin(2 * np.pi * drift_hz * t[:, None] + phases)).astype(np.float32)
    if line_uv:
        mains = np.sin(2 * np.pi * line_hz * t)[:, None] * (line_uv * scale)
        out += mains.astype(np.float32)
    return out


def artefact_uv(
    currents_ua: np.ndarray,
    positions_um: np.ndarray,
    samples: int,
    sampling_hz: float,
    *,
    uv_per_ua: float,
    length_um: float,
    decay_ms: float,
    pulse_ms: float,
    saturation_ua: float | None = None,
) -> np.ndarray:
    """(samples, channels) float32 µV from a pulse's start: what one pulse of
    `currents_ua` (channels,) on the array leaves on every electrode. Each stimulating
    electrode e adds uv_per_ua · g(I_e) / (1 + d_ce / length_um) on channel c (d_ce the
    distance between electrodes, µm), held while the pulse lasts (`pulse_ms`), then
    falling as exp(−t / τ_e). Linear (`saturation_ua` None): g(I) = I and τ = decay_ms.
    Saturating: g(I) = saturation_ua · tanh(I / saturation_ua), the electrode's response
    flattening as its double layer charges, and τ = decay_ms · (1 + |I| / saturation_ua),
    the recovery slower after a larger pulse — smooth in current, and not the form
    artefact removal assumes (a line with departures at a few current levels).

    >>> x = np.array([[0.0, 0.0], [60.0, 0.0]])
    >>> a = artefact_uv(np.array([2.0, 0.0]), x, 100, 20000.0, uv_per_ua=100, length_um=60,
    ...                 decay_ms=1.0, pulse_ms=0.15)
    >>> a[0].tolist(), round(float(a[3 + 20, 0] / a[3, 0]), 3)
    ([200.0, 100.0], 0.368)
    >>> b = artefact_uv(np.array([20.0, 0.0]), x, 100, 20000.0, uv_per_ua=100, length_um=60,
    ...                 decay_ms=1.0, pulse_ms=0.15, saturation_ua=5.0)
    >>> round(float(b[0, 0])), round(float(b[3 + 20, 0] / b[3, 0]), 3)  # 500 µV · tanh 4
    (500, 0.819)
    """
    distance = np.linalg.norm(positions_um[:, None] - positions_um[None], axis=-1)
    spread = 1 / (1 + distance / length_um)
    held = max(1, round(pulse_ms * 1e-3 * sampling_hz))
    t_ms = np.maximum(np.arange(samples) - held, 0) * 1e3 / sampling_hz
    wave = np.zeros((samples, len(positions_um)))
    for e in np.flatnonzero(currents_ua):
        current = float(currents_ua[e])
        if saturation_ua is None:
            drive, decay = current, decay_ms
        else:
            drive = saturation_ua * np.tanh(current / saturation_ua)
            decay = decay_ms * (1 + abs(current) / saturation_ua)
        wave += np.exp(-t_ms / decay)[:, None] * (uv_per_ua * drive * spread[e])[None]
    return wave.astype(np.float32)
