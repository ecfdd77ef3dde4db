"""What an MEA amplifier adds to every channel besides the cell and white noise: a DC
offset, a slow baseline drift and mains interference. Real recordings always carry the
first two (electrode polarisation, temperature); the simulator adds them on request so the
fit's preprocessing is tested on what raw files hold."""

from __future__ import annotations

import numpy as np


def baseline_uv(samples: int, channels: int, sampling_hz: float, *, offset_uv: float,
                drift_uv: float, drift_hz: float, line_uv: float, line_hz: float,
                rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """(samples, channels) float32 µV: per channel a DC offset drawn uniformly in
    ±offset_uv; a drift of amplitude drift_uv at drift_hz with a random phase per channel;
    mains interference at line_hz (common phase, as from one source) whose amplitude is
    line_uv times a factor drawn in [0.5, 1.5] per channel.

    >>> b = baseline_uv(20000, 3, 20000.0, offset_uv=100, drift_uv=0, drift_hz=1,
    ...                 line_uv=0, line_hz=50, rng=np.random.default_rng(0))
    >>> bool(np.all(np.abs(b) <= 100) and np.all(b == b[0]))
    True
    """
    t = np.arange(samples) / sampling_hz
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
