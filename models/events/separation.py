"""Layer separation from both motions (after Szeliski, Avidan and Anandan 2000): every
frame is the transmission T warped along its motion plus the reflection R warped along its
own, F_k = W_T(s_k)·T + W_R(s_k)·R, a linear system in (T, R) solved by damped least
squares (LSQR) from the aligned-minimum estimate. Two motions leave some of it
undetermined: a constant can move from one layer to the other, and so can the spatial
frequencies that both motions carry alike (those across the velocity difference); LSQR
keeps the starting estimate's share of those, and the constant is pinned by taking the
reflection's darkest 1% as black (a reflection adds light and somewhere adds almost
none)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr

from .cmax import flow, origin
from .removal import remove_reflection

DARK_PERCENTILE = 1.0
"""Percentile of the reflection taken as black (%)."""
DAMP = 0.3
"""Tikhonov damping of LSQR's step from the start (per DN): the components two motions
barely tell apart are ill-conditioned and blow a few px/s of motion error up into the
layers. On development scenes 0–9 (translations, and homographies with affine motions):
mean transmission PSNR with the estimated motions 23.3 dB undamped, 28.7 at 0.15, 28.8 at
0.3, 28.0 at 1; with the true motions 33.1, 31.0, 30.3, 29.0. Damped, the separation also
beat the aligned minimum on development scenes whose reflection motion was 35–300 px/s off
(by 1.3–5 dB)."""
ITERATIONS = 300
"""LSQR iterations (the residual stops falling well before on 128 × 96 scenes)."""


def warp_operator(
    shape: tuple[int, int, int], times_s: np.ndarray, motion: np.ndarray, pad: int
) -> sp.csr_matrix:
    """Sparse (K·H·W) × ((H + 2·pad)·(W + 2·pad)) matrix: frame k's pixel q is the layer,
    held on a grid padded by `pad` px, read bilinearly where the point seen at q was at the
    reference time (see cmax.origin; s_k in s)."""
    frames, height, width = shape
    wide = width + 2 * pad
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    rows, columns, values = [], [], []
    for k, s in enumerate(times_s):
        ox, oy = origin(motion, x, y, s, width, height)
        sx = np.clip(ox + pad, 0, wide - 1.000001).ravel()
        sy = np.clip(oy + pad, 0, height + 2 * pad - 1.000001).ravel()
        ix, iy = sx.astype(np.int64), sy.astype(np.int64)
        fx, fy = sx - ix, sy - iy
        corner = iy * wide + ix
        rows.append(np.tile(np.arange(height * width) + k * height * width, 4))
        columns.append(np.concatenate([corner, corner + 1, corner + wide, corner + wide + 1]))
        values.append(np.concatenate([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]))
    size = (frames * height * width, wide * (height + 2 * pad))
    return sp.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))), shape=size
    )


@dataclass(frozen=True)
class Separation:
    """transmission, reflection: (H, W) DN at the reference frame; residual_dn: RMS of what
    the two warped layers leave unexplained in the frames (well under 1 DN with the true
    motions, a few DN with motions some px/s off)."""

    transmission: np.ndarray
    reflection: np.ndarray
    residual_dn: float


def separate_layers(
    frames: np.ndarray, times_us: np.ndarray, motions: np.ndarray, reference: int = 0
) -> Separation:
    """Both layers at frame `reference`, from frames (K, H, W) DN and the two layers'
    motions (transmission first; velocities px/s or six numbers, see cmax)."""
    frames = np.asarray(frames, np.float64)
    t = (np.asarray(times_us, np.float64) - times_us[reference]) * 1e-6
    height, width = frames.shape[1:]
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    reach = max(float(np.hypot(*flow(m, x, y, width, height)).max()) for m in motions)
    pad = math.ceil(reach * np.abs(t).max()) + 2
    warps = [warp_operator(frames.shape, t, m, pad) for m in motions]
    # the start: the aligned minimum for T, then the same along R's motion for what remains
    start_t = np.pad(remove_reflection(frames, times_us, motions[0], reference), pad, "edge")
    rest = frames - (warps[0] @ start_t.ravel()).reshape(frames.shape)
    start_r = np.pad(remove_reflection(rest, times_us, motions[1], reference), pad, "edge")
    start = np.concatenate([start_t.ravel(), start_r.ravel()])
    system = sp.hstack(warps).tocsr()
    found = lsqr(
        system,
        frames.ravel() - system @ start,
        damp=DAMP,
        iter_lim=ITERATIONS,
        atol=1e-10,
        btol=1e-10,
    )
    solution = (start + found[0]).reshape(2, height + 2 * pad, width + 2 * pad)
    inner = (slice(pad, pad + height), slice(pad, pad + width))
    transmission, reflection = solution[0][inner], solution[1][inner]
    black = float(np.percentile(reflection, DARK_PERCENTILE))
    residual = float(found[3]) / math.sqrt(frames.size)  # LSQR's ‖b − A·x‖, undamped
    return Separation(
        np.maximum(transmission + black, 0), np.maximum(reflection - black, 0), residual
    )
