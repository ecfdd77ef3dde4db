"""Synthetic scenes rendered as frames: a drifting random texture (a sum of sinusoids, so
every sub-pixel shift is exact), rendered often enough that it moves at most one pixel
between frames."""

from __future__ import annotations

import math

import numpy as np


def drifting_texture(
    width: int, height: int, duration_s: float, velocity_px_s: tuple[float, float] = (200, 50),
    seed: int = 0, waves: int = 24, contrast: float = 0.8,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(frames (T, H, W) in DN within [10, 250], times (T,) in µs): a texture of `waves`
    random plane waves (periods 8–64 px) translating at `velocity_px_s` (vx, vy)."""
    rng = np.random.default_rng(seed)
    speed = math.hypot(*velocity_px_s)
    steps = max(2, math.ceil(duration_s * speed) + 1)  # ≤ 1 px per step
    times_us = np.round(np.linspace(0.0, duration_s * 1e6, steps)).astype(np.int64)
    angle = rng.uniform(0, 2 * math.pi, waves)
    k = 2 * math.pi / rng.uniform(8, 64, waves)
    kx, ky = k * np.cos(angle), k * np.sin(angle)
    phase, amplitude = rng.uniform(0, 2 * math.pi, waves), rng.uniform(0.5, 1.0, waves)
    amplitude /= np.sqrt((amplitude**2).sum() / 2) * 2  # the field's std is 1/2
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    frames = np.empty((steps, height, width))
    for i, t in enumerate(times_us * 1e-6):
        sx, sy = x - velocity_px_s[0] * t, y - velocity_px_s[1] * t
        field = np.einsum("w,whv->hv", amplitude, np.sin(kx[:, None, None] * sx
                          + ky[:, None, None] * sy + phase[:, None, None]))  # fmt: skip
        frames[i] = 130 + 120 * contrast * np.clip(field, -1, 1)
    return frames, times_us
