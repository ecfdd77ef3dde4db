"""The frame-only baseline of event-guided layer separation: two layers' motions found from
the frames alone, by dense optical flow, to feed the same separation.

A practitioner with only a frame camera would do this: OpenCV's Farnebäck dense flow
between consecutive frames; every textured pixel's flow (px per frame interval, made px/s
by the frames' times) is a vote; k-means splits the votes into two motions, and each
motion is the median of its cluster (robust to the pixels where the layers mix). The
transmission is the motion more pixels follow (the reflection is the weaker image), as
`layers.transmission_first` names it from the events.

    >>> import numpy as np
    >>> from substrates.models.events.scenes import ReflectionScene
    >>> rendered = ReflectionScene.random(0).render()
    >>> frame_motions(rendered.frames, rendered.times).shape
    (2, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

FARNEBACK: dict[str, Any] = {
    "pyr_scale": 0.5,
    "levels": 4,
    "winsize": 15,
    "iterations": 3,
    "poly_n": 5,
    "poly_sigma": 1.2,
    "flags": 0,
}
"""OpenCV's Farnebäck parameters: its documentation's example, one pyramid level more for
motions of several pixels a frame."""
TEXTURED_QUANTILE = 0.5
"""Pixels whose gradient is above this quantile of the frame's vote."""
MAX_VOTES = 20_000
"""Votes k-means clusters (drawn evenly from all frame pairs)."""


def frame_motions(frames: np.ndarray, times_us: np.ndarray, seed: int = 0) -> np.ndarray:
    """Two velocities (2, 2) in px/s, transmission first, from frames (K, H, W) in DN
    (0–255) taken at times_us (µs)."""
    import cv2

    frames = np.clip(np.asarray(frames, np.float64), 0, 255).astype(np.uint8)
    if len(frames) < 2:
        raise ValueError("optical flow needs at least two frames")
    intervals_s = np.diff(np.asarray(times_us, np.float64)) * 1e-6
    votes = []
    for k in range(len(frames) - 1):
        flow = cv2.calcOpticalFlowFarneback(frames[k], frames[k + 1], None, **FARNEBACK)
        gy, gx = np.gradient(frames[k].astype(np.float64))
        strength = np.hypot(gx, gy)
        textured = strength > np.quantile(strength, TEXTURED_QUANTILE)
        votes.append(flow[textured] / intervals_s[k])
    every = np.concatenate(votes).astype(np.float32)
    rng = np.random.default_rng(seed)
    if len(every) > MAX_VOTES:
        every = every[rng.choice(len(every), MAX_VOTES, replace=False)]
    cv2.setRNGSeed(seed)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 1e-3)
    _, labels, _ = cv2.kmeans(every, 2, None, criteria, 5, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    motions = np.array([np.median(every[labels == c], axis=0) for c in (0, 1)], np.float64)
    counts = np.bincount(labels, minlength=2)
    return motions if counts[0] >= counts[1] else motions[::-1].copy()
