"""Frames for the simulator from a video file (imageio with its bundled ffmpeg): luminance in
DN (Rec. 601 weights), times from the frame rate, optionally upsampled in time by linear
interpolation of intensity."""

from __future__ import annotations

import os

import numpy as np

from .events import EventError

LUMA = np.array([0.299, 0.587, 0.114])


def read_video(path: str | os.PathLike[str], upsample: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(frames (T, H, W) DN, times (T,) µs) of a video; `upsample` − 1 frames are interpolated
    between each pair."""
    try:
        import imageio.v3 as iio
    except ImportError:
        raise EventError(f"{path}: reading videos needs imageio and imageio-ffmpeg") from None
    try:
        pixels = iio.imread(path)
        fps = float(iio.immeta(path).get("fps") or 0)
    except Exception as error:  # imageio's and ffmpeg's own message says what is wrong
        raise EventError(f"{path}: not a readable video: {error}") from None
    if pixels.ndim not in (3, 4) or len(pixels) < 2 or fps <= 0:
        raise EventError(
            f"{path}: need at least two frames and a frame rate, got {pixels.shape} at {fps} fps"
        )
    frames = pixels[..., :3] @ LUMA if pixels.ndim == 4 else pixels.astype(np.float64)
    times = np.arange(len(frames)) * 1e6 / fps
    if upsample > 1:
        steps = np.arange(upsample) / upsample
        share = steps[None, :, None, None]
        between = frames[:-1, None] * (1 - share) + frames[1:, None] * share
        frames = np.concatenate([between.reshape(-1, *frames.shape[1:]), frames[-1:]])
        times = np.concatenate(
            [(times[:-1, None] + steps * np.diff(times)[:, None]).ravel(), times[-1:]]
        )
    return np.asarray(frames, np.float64), np.round(times).astype(np.int64)
