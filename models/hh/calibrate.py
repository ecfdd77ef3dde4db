"""Threshold calibration: the image pins where the cell lies and its axon, far less its
channel densities, which set its activation thresholds. Starting from the refined cell,
a grid over Na⁺ and K⁺ densities and height (the parameters thresholds hang on) is
scored by a sum of squares over both data: the image residual in units of its noise and
the log threshold errors in units of THRESHOLD_LOG_SD; the best point is zoomed into
once more. Thresholds are bisections of simulated trials, so no gradient is used."""

from __future__ import annotations

from itertools import product

import numpy as np

from substrates.backends.mea.base import CellModel

from .summary import align

THRESHOLD_LOG_SD = 0.1
"""How far (in log µA) a fitted threshold may sit from the observed one for one unit."""
CALIBRATED = ("gna_s_cm2", "gk_s_cm2", "height_um")


def calibrate(model: CellModel, theta: np.ndarray, image: np.ndarray, channel: int, at: int,
              image_noise_uv: np.ndarray, electrodes: list[int], thresholds_ua: np.ndarray,
              shape: str, points: int = 5, zooms: int = 2) -> tuple[np.ndarray, float]:  # fmt: skip
    """(theta, score) of the best grid point over CALIBRATED around `theta`."""
    names = [p.name for p in model.parameters]
    index = [names.index(n) for n in CALIBRATED]
    low = np.array([model.parameters[k].low for k in index])
    high = np.array([model.parameters[k].high for k in index])
    noise = np.maximum(image_noise_uv, 1e-9)[:, None]
    best, best_score = theta, np.inf
    lo, hi = low, high
    for _ in range(zooms):
        axes = [np.linspace(a, b, points) for a, b in zip(lo, hi, strict=True)]
        grid = np.repeat(best[None], points ** len(index), axis=0)
        grid[:, index] = np.array(list(product(*axes)))
        templates = align(model.templates(grid), channel, at)
        image_chi2 = (((templates - image[None]) / noise[None]) ** 2).sum(axis=(1, 2))
        simulated = model.thresholds(grid, np.array(electrodes), shape)
        log_error = np.log(simulated) - np.log(thresholds_ua)[None]
        score = image_chi2 / image.size + ((log_error / THRESHOLD_LOG_SD) ** 2).sum(axis=1)
        k = int(np.argmin(score))
        if score[k] < best_score:
            best, best_score = grid[k], float(score[k])
        step = (hi - lo) / (points - 1)
        lo, hi = np.maximum(low, best[index] - step), np.minimum(high, best[index] + step)
    return best, best_score
