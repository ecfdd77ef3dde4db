"""Summary features of a cell for inference: its electrical image aligned on one reference
channel's trough, reduced to each channel's trough depth (log µV) and trough latency
(ms, weighted towards zero where the trough is faint), plus log activation thresholds
(log µA) on the fitting electrodes."""

from __future__ import annotations

import numpy as np

FAINT_UV = 20.0
"""Troughs much shallower than this (µV) carry little latency information."""


def align(images: np.ndarray, channel: int, at: int) -> np.ndarray:
    """Images (..., channels, samples) shifted in time so `channel`'s trough sits at sample
    `at` (zero-filled at the ends)."""
    images = np.asarray(images)
    flat = images.reshape(-1, *images.shape[-2:])
    out = np.zeros_like(flat)
    samples = flat.shape[-1]
    for k, image in enumerate(flat):
        shift = at - int(image[channel].argmin())
        src = slice(max(0, -shift), min(samples, samples - shift))
        dst = slice(max(0, shift), min(samples, samples + shift))
        out[k][:, dst] = image[:, src]
    return out.reshape(images.shape)


def image_features(images: np.ndarray, sampling_hz: float, at: int) -> np.ndarray:
    """(..., 2·channels): log(1 + depth/1 µV) of every channel's trough and its latency
    after sample `at` (ms) times depth/(depth + FAINT_UV)."""
    depth = np.maximum(-np.min(images, axis=-1), 0.0)
    latency = (np.argmin(images, axis=-1) - at) * 1e3 / sampling_hz
    return np.concatenate([np.log1p(depth), latency * depth / (depth + FAINT_UV)], axis=-1)


def features(
    images: np.ndarray, thresholds_ua: np.ndarray, sampling_hz: float, at: int
) -> np.ndarray:
    """Image features followed by log thresholds (log µA)."""
    return np.concatenate([image_features(images, sampling_hz, at), np.log(thresholds_ua)], -1)
