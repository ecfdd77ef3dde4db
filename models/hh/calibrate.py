"""Threshold calibration: the image pins where the cell lies and its axon, far less its
channel densities, which set its activation thresholds. Starting from the refined cell,
a grid over Na⁺ and K⁺ densities and height (the parameters thresholds hang on) is
scored by a sum of squares over both data: the image residual in units of its noise and
the log threshold errors in units of THRESHOLD_LOG_SD; the best point is zoomed into
once more. Thresholds are bisections of simulated trials, so no gradient is used. The same
score picks the fitted cell among the fit's candidates."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ...backends.mea.base import CellModel
from .summary import align

THRESHOLD_LOG_SD = 0.1
"""How far (in log µA) a fitted threshold may sit from the observed one for one unit."""
CALIBRATED = ("gna_s_cm2", "gk_s_cm2", "height_um")


@dataclass(frozen=True)
class Target:
    """What a cell must reproduce: the electrical image (channels, samples) µV aligned on
    `channel`'s trough at sample `at`, its noise SD per channel (µV), and the thresholds
    (µA) of `shape` pulses on the fitting electrodes."""

    image: np.ndarray
    channel: int
    at: int
    image_noise_uv: np.ndarray
    electrodes: list[int]
    thresholds_ua: np.ndarray
    shape: str


def score(model: CellModel, thetas: np.ndarray, target: Target) -> np.ndarray:
    """(B,) sum of squares over both data: the image residual per sample in units of its
    noise, plus each log threshold error in units of THRESHOLD_LOG_SD."""
    templates = align(model.templates(thetas), target.channel, target.at)
    noise = np.maximum(target.image_noise_uv, 1e-9)[None, :, None]
    image_chi2 = (((templates - target.image[None]) / noise) ** 2).sum(axis=(1, 2))
    simulated = model.thresholds(thetas, np.array(target.electrodes), target.shape)
    log_error = np.log(simulated) - np.log(target.thresholds_ua)[None]
    return image_chi2 / target.image.size + ((log_error / THRESHOLD_LOG_SD) ** 2).sum(axis=1)


def calibrate(model: CellModel, theta: np.ndarray, target: Target, points: int = 5,
              zooms: int = 2) -> np.ndarray:  # fmt: skip
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
        scores = score(model, grid, target)
        k = int(np.argmin(scores))
        if scores[k] < best_score:
            best, best_score = grid[k], float(scores[k])
        step = (hi - lo) / (points - 1)
        lo, hi = np.maximum(low, best[index] - step), np.minimum(high, best[index] + step)
    return best
