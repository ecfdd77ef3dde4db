"""Synthetic scenes rendered as frames: random textures (sums of plane waves, so every
sub-pixel shift is exact) that translate, rendered often enough that they move at most one
pixel between frames."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Texture:
    """A random texture in [−1, 1]: `waves` plane waves with periods 8–64 px, std ≈ 1/2."""

    kx: np.ndarray
    ky: np.ndarray
    phase: np.ndarray
    amplitude: np.ndarray

    @classmethod
    def random(cls, seed: int, waves: int = 24) -> Texture:
        rng = np.random.default_rng(seed)
        angle = rng.uniform(0, 2 * math.pi, waves)
        k = 2 * math.pi / rng.uniform(8, 64, waves)
        phase, amplitude = rng.uniform(0, 2 * math.pi, waves), rng.uniform(0.5, 1.0, waves)
        amplitude /= np.sqrt((amplitude**2).sum() / 2) * 2
        return cls(k * np.cos(angle), k * np.sin(angle), phase, amplitude)

    def at(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The texture's values in [−1, 1] at texture coordinates (x, y) (any equal shapes)."""
        waves = np.sin(
            np.multiply.outer(self.kx, x)
            + np.multiply.outer(self.ky, y)
            + self.phase.reshape(-1, *([1] * np.ndim(x)))
        )
        return np.clip(np.tensordot(self.amplitude, waves, axes=1), -1, 1)

    def render(self, width: int, height: int, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
        """The texture shifted by (dx, dy) px: (H, W) values in [−1, 1]."""
        y, x = np.mgrid[0:height, 0:width].astype(np.float64)
        return self.at(x - dx, y - dy)


def frame_times(duration_s: float, fastest_px_s: float) -> np.ndarray:
    """Frame times (µs) such that nothing moving at ≤ fastest_px_s moves more than 1 px."""
    steps = max(2, math.ceil(duration_s * fastest_px_s) + 1)
    return np.round(np.linspace(0.0, duration_s * 1e6, steps)).astype(np.int64)


def drifting_texture(
    width: int,
    height: int,
    duration_s: float,
    velocity_px_s: tuple[float, float] = (200, 50),
    seed: int = 0,
    contrast: float = 0.8,
) -> tuple[np.ndarray, np.ndarray]:
    """(frames (T, H, W) in DN within [10, 250], times (T,) in µs): a random texture
    translating at `velocity_px_s` (vx, vy)."""
    texture = Texture.random(seed)
    times_us = frame_times(duration_s, math.hypot(*velocity_px_s))
    frames = np.empty((len(times_us), height, width))
    for i, t in enumerate(times_us * 1e-6):
        shift = texture.render(width, height, velocity_px_s[0] * t, velocity_px_s[1] * t)
        frames[i] = 130 + 120 * contrast * shift
    return frames, times_us
