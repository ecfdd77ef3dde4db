"""What a fit must beat on held-out patterns: a model-free rule, a statistical model of
the cell's own trials, and a constant.

- threshold: a pattern makes the cell spike when its summed current magnitude (µA) reaches
  the median of the thresholds observed on the fitting electrodes — no cell, no geometry;
- logistic: per cell, a logistic regression of the fitting trials' outcomes on the
  pattern's summed current magnitude (µA) and its current-weighted distance (µm) from the
  cell, placed at the electrode where its electrical image is deepest — no membrane, no
  morphology, the geometry reduced to one distance;
- majority: every pattern gets the outcome most held-out patterns show (it reads the
  held-out labels, so it is a ceiling for any constant guess, not a method)."""

from __future__ import annotations

import numpy as np

from .patterns import Responses

LOGISTIC_RIDGE = 1e-3
"""L2 penalty on the standardised logistic coefficients: finite when the fitting trials
are perfectly separated by current (they often are), negligible otherwise."""


def threshold_baseline(held_out: list[Responses], thresholds_ua: list[float]) -> np.ndarray:
    """(patterns,) bool: spike predicted where Σ|I| ≥ the median observed threshold.

    >>> from substrates.models.hh.patterns import Pattern
    >>> one = Responses(Pattern((3,), (2.0,), "triphasic"), 8, 1)
    >>> pair = Responses(Pattern((3, 4), (2.0, -2.0), "triphasic"), 8, 7)
    >>> threshold_baseline([one, pair], [3.0, 3.5, 10.0]).tolist()
    [False, True]
    """
    level = float(np.median(thresholds_ua))
    return np.array([np.abs(r.pattern.currents_ua).sum() >= level for r in held_out], bool)


def majority_baseline(held_out: list[Responses]) -> np.ndarray:
    """(patterns,) bool: the held-out patterns' most common outcome, for all of them."""
    observed = np.array([r.probability > 0.5 for r in held_out], bool)
    return np.full(len(held_out), observed.mean() > 0.5 if len(observed) else False)


def pattern_features(found: list[Responses], positions_um: np.ndarray, cell: int) -> np.ndarray:
    """(patterns, 2): each pattern's summed current magnitude (µA) and the mean distance
    (µm) of its electrodes from electrode `cell`, weighted by their current magnitudes."""
    rows = []
    for r in found:
        magnitude = np.abs(np.asarray(r.pattern.currents_ua))
        offsets = positions_um[list(r.pattern.channels)] - positions_um[cell]
        distance = np.linalg.norm(offsets, axis=1)
        rows.append((magnitude.sum(), float((magnitude * distance).sum() / magnitude.sum())))
    return np.array(rows, float).reshape(-1, 2)


def logistic_baseline(
    fitting: list[Responses], held_out: list[Responses], positions_um: np.ndarray, cell: int
) -> np.ndarray:
    """(held-out patterns,) bool: spike predicted where the logistic regression of the
    fitting trials (spikes of trials at each pattern; features from pattern_features,
    standardised; LOGISTIC_RIDGE) gives p > 0.5. A feature the fitting patterns do not
    vary (one distance) is left out.

    >>> from substrates.models.hh.patterns import Pattern
    >>> x = np.array([[0.0, 0.0], [30.0, 0.0], [60.0, 0.0]])
    >>> fit = [Responses(Pattern((0,), (i,), "triphasic"), 8, int(8 * (i > 2.5)))
    ...        for i in (1.0, 2.0, 3.0, 4.0)]
    >>> far = [Responses(Pattern((2,), (i,), "triphasic"), 8, 0) for i in (2.0, 6.0)]
    >>> logistic_baseline(fit, far, x, cell=0).tolist()
    [False, True]
    """
    from scipy.optimize import minimize

    x = pattern_features(fitting, positions_um, cell)
    spikes = np.array([r.spikes for r in fitting], float)
    trials = np.array([r.trials for r in fitting], float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    used = scale > 0
    design = np.column_stack([np.ones(len(x)), (x[:, used] - mean[used]) / scale[used]])

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ beta
        p = 1 / (1 + np.exp(-z))
        value = np.sum(spikes * np.logaddexp(0, -z) + (trials - spikes) * np.logaddexp(0, z))
        value += LOGISTIC_RIDGE * np.sum(beta[1:] ** 2)
        gradient = design.T @ (trials * p - spikes)
        gradient[1:] += 2 * LOGISTIC_RIDGE * beta[1:]
        return float(value), gradient

    beta = minimize(loss, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B").x
    z = pattern_features(held_out, positions_um, cell)
    held = np.column_stack([np.ones(len(z)), (z[:, used] - mean[used]) / scale[used]])
    return held @ beta > 0
