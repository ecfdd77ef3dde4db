"""Activation curves: the probability that a cell spikes against the stimulation current,
fitted by maximum likelihood with a logistic p(I) = 1 / (1 + exp(−(I − I50) / s)); the
threshold is I50, the current at p = 0.5 (µA), known to within threshold_log_sd (the
posterior SD of log I50 given the trials: a few trials per current leave it uncertain)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize


@dataclass(frozen=True)
class ActivationCurve:
    """threshold_ua: I50 (µA); spread_ua: s (µA); threshold_log_sd: how well the trials
    pin log I50 (posterior SD); probability(I) the fitted curve."""

    threshold_ua: float
    spread_ua: float
    threshold_log_sd: float

    def probability(self, current_ua: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(np.asarray(current_ua) - self.threshold_ua) / self.spread_ua))


def fit_activation(
    current_ua: np.ndarray, spikes: np.ndarray, trials: np.ndarray
) -> ActivationCurve:
    """The maximum-likelihood logistic through `spikes` of `trials` at each current."""
    current, k, n = (np.asarray(v, float) for v in (current_ua, spikes, trials))
    if np.any(k < 0) or np.any(k > n) or np.any(n <= 0):
        raise ValueError("spikes must lie in 0..trials and trials be positive")

    def loss(theta: np.ndarray) -> float:
        z = (current - theta[0]) / np.exp(theta[1])
        # log p = −log(1 + e^−z), log(1 − p) = −log(1 + e^z)
        return float(np.sum(k * np.logaddexp(0, -z) + (n - k) * np.logaddexp(0, z)))

    spread = max(float(np.ptp(current)) / 10, 1e-6)
    start = np.array([float(np.interp(0.5, *_monotone(current, k / n))), np.log(spread)])
    result = minimize(loss, start, method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-10})
    return ActivationCurve(
        float(result.x[0]), float(np.exp(result.x[1])), threshold_log_sd(current, k, n)
    )


def threshold_log_sd(
    current_ua: np.ndarray,
    spikes: np.ndarray,
    trials: np.ndarray,
    points: int = 400,
    spreads: int = 40,
) -> float:
    """The posterior SD of log I50 under the logistic model, on a grid: log I50 uniform
    over the tested currents' range widened 4× each way, the relative spread s/I50
    log-uniform in [10^−2.5, 1]. Where a step separates the trials (no spread seen), it
    is the spacing of the currents around the step over √12, as for any value known only
    to lie between two; where many trials trace the curve, the asymptotic (Fisher) SE."""
    current, k, n = (np.asarray(v, float) for v in (current_ua, spikes, trials))
    positive = current[current > 0]
    log_a = np.linspace(np.log(positive.min() / 4), np.log(positive.max() * 4), points)
    log_r = np.linspace(np.log(10**-2.5), 0.0, spreads)
    a = np.exp(log_a)[:, None, None]
    z = (current[None, None] - a) / (a * np.exp(log_r)[None, :, None])
    loglik = -(k * np.logaddexp(0, -z) + (n - k) * np.logaddexp(0, z)).sum(axis=-1)
    weight = np.exp(loglik - loglik.max()).sum(axis=1)
    weight /= weight.sum()
    mean = float((weight * log_a).sum())
    return float(np.sqrt((weight * (log_a - mean) ** 2).sum()))


def _monotone(current: np.ndarray, rate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rates, currents) in increasing rate order, for a first guess of I50."""
    order = np.argsort(rate, kind="stable")
    return rate[order], current[order]
