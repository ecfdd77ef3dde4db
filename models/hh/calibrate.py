"""Threshold calibration: the image pins where the cell lies and its axon, far less its
channel densities, which set its activation thresholds. Starting from the refined cell,
a grid over Na⁺ and K⁺ densities and height (the parameters thresholds hang on) is
scored by the negative log-likelihood of both data: the image's residual in units of its
noise, every sample counted, and each log threshold error in units of its own SD (how
well that electrode's trials pin its I50, plus MODEL_LOG_SD for what separates the
model's noise-free threshold from a noisy cell's I50); the best point is zoomed into
once more. Thresholds are bisections of simulated trials, so no gradient is used. The same
score picks the fitted cell among the fit's candidates: a cell that buys a closer
threshold with a worse image wins only where the image cannot tell them apart."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ...backends.mea.base import CellModel
from .summary import align

MODEL_LOG_SD = 0.1
"""The SD (log µA) of a noise-free model threshold about a noisy cell's I50: at the
simulated sessions' true parameters they differed by 0.01–0.14 (seeds 0, 2, 3)."""
CALIBRATED = ("gna_s_cm2", "gk_s_cm2", "height_um")


@dataclass(frozen=True)
class Target:
    """What a cell must reproduce: the electrical image (channels, samples) µV aligned on
    `channel`'s trough at sample `at`, its noise SD per channel (µV), and the thresholds
    (µA) of `shape` pulses on the fitting electrodes with the SD of their logs."""

    image: np.ndarray
    channel: int
    at: int
    image_noise_uv: np.ndarray
    electrodes: list[int]
    thresholds_ua: np.ndarray
    shape: str
    thresholds_log_sd: np.ndarray


def score(
    model: CellModel, thetas: np.ndarray, target: Target, bound: float = np.inf
) -> np.ndarray:
    """(B,) negative log-likelihood (up to a constant) of both data: half the image's χ²
    (every sample's residual in units of its noise) plus half the sum of squared log
    threshold errors in units of √(thresholds_log_sd² + MODEL_LOG_SD²). Where the image's
    half alone reaches `bound` the thresholds are not simulated (they only add) and the
    score is that half: whatever scores under `bound` scores exactly as without it."""
    templates = align(model.templates(thetas), target.channel, target.at)
    noise = np.maximum(target.image_noise_uv, 1e-9)[None, :, None]
    scores = 0.5 * (((templates - target.image[None]) / noise) ** 2).sum(axis=(1, 2))
    open_ = scores < bound
    if open_.any():
        simulated = model.thresholds(thetas[open_], np.array(target.electrodes), target.shape)
        log_error = np.log(simulated) - np.log(target.thresholds_ua)[None]
        variance = target.thresholds_log_sd**2 + MODEL_LOG_SD**2
        scores[open_] += 0.5 * (log_error**2 / variance[None]).sum(axis=1)
    return scores


def calibrate(
    model: CellModel, theta: np.ndarray, target: Target, points: int = 5, zooms: int = 2
) -> np.ndarray:
    """The best-scoring grid point over CALIBRATED around `theta` (zoomed in `zooms`
    times), or `theta` where none scores better."""
    names = [p.name for p in model.parameters]
    index = [names.index(n) for n in CALIBRATED]
    low = np.array([model.parameters[k].low for k in index])
    high = np.array([model.parameters[k].high for k in index])
    best, best_score = theta, float(score(model, theta[None], target)[0])
    lo, hi = low, high
    for _ in range(zooms):
        axes = [np.linspace(a, b, points) for a, b in zip(lo, hi, strict=True)]
        grid = np.repeat(best[None], points ** len(index), axis=0)
        grid[:, index] = np.array(list(product(*axes)))
        scores = score(model, grid, target, bound=best_score)  # most points: image alone
        k = int(np.argmin(scores))
        if scores[k] < best_score:
            best, best_score = grid[k], float(scores[k])
        step = (hi - lo) / (points - 1)
        lo, hi = np.maximum(low, best[index] - step), np.minimum(high, best[index] + step)
    return best
