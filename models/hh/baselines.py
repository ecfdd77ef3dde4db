"""What a fit must beat on held-out patterns: a model-free rule and a constant.

- threshold: a pattern makes the cell spike when its summed current magnitude (µA) reaches
  the median of the thresholds observed on the fitting electrodes — no cell, no geometry;
- majority: every pattern gets the outcome most held-out patterns show (it reads the
  held-out labels, so it is a ceiling for any constant guess, not a method)."""

from __future__ import annotations

import numpy as np

from .patterns import Responses


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
