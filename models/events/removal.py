"""Reflection removal guided by the transmission's motion: frames warped back along that
motion hold the transmission still while the reflection slides; since I = T + R with R ≥ 0,
the per-pixel minimum over the aligned frames keeps T plus the darkest reflection that
passed over each pixel."""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import map_coordinates

from .cmax import flow


def remove_reflection(
    frames: np.ndarray, times_us: np.ndarray, motion: np.ndarray, reference: int = 0
) -> np.ndarray:
    """The transmission at frame `reference` (DN), from frames (T, H, W) and the
    transmission's motion (a velocity in px/s, or six numbers: see models.events.cmax)."""
    t = (np.asarray(times_us, np.float64) - times_us[reference]) * 1e-6
    height, width = frames.shape[1:]
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    ux, uy = flow(motion, x, y, width, height)
    aligned = [
        map_coordinates(frame, [y + uy * s, x + ux * s], order=1, mode="nearest")
        for frame, s in zip(frames, t, strict=True)
    ]
    return np.min(aligned, axis=0)


def psnr(estimate: np.ndarray, truth: np.ndarray, margin: int = 0, peak: float = 255.0) -> float:
    """Peak signal-to-noise ratio (dB) inside a border of `margin` px."""
    inner = (slice(margin, truth.shape[0] - margin), slice(margin, truth.shape[1] - margin))
    if truth[inner].size == 0:
        raise ValueError(f"a border of {margin} px leaves nothing of a {truth.shape} image")
    error = float(np.mean((estimate[inner] - truth[inner]) ** 2))
    return math.inf if error == 0 else 10 * math.log10(peak**2 / error)
