"""The held-out baselines against independent implementations: the logistic baseline's
predictions against scikit-learn's LogisticRegression fitted to the same trials, one row
per trial, with the same features and penalty."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.models.hh.baselines import LOGISTIC_RIDGE, logistic_baseline, pattern_features
from substrates.models.hh.patterns import Pattern, Responses

POSITIONS = np.array([[0.0, 0.0], [30.0, 0.0], [60.0, 0.0], [0.0, 30.0], [90.0, 30.0]])


def _trials(seed: int) -> tuple[list[Responses], list[Responses]]:
    """Fitting patterns on electrodes 0, 1 and 3 at eight currents, 8 trials each, drawn
    from a cell at electrode 0 whose threshold grows with distance; held-out single and
    paired patterns on every electrode."""
    rng = np.random.default_rng(seed)

    def probability(current: float, distance: float) -> float:
        return 1 / (1 + np.exp(-(current - 2.0 - distance / 15.0) / 0.4))

    fitting = []
    for e in (0, 1, 3):
        distance = float(np.linalg.norm(POSITIONS[e] - POSITIONS[0]))
        for current in np.linspace(0.5, 6.0, 8):
            spikes = int(rng.binomial(8, probability(current, distance)))
            fitting.append(Responses(Pattern((e,), (float(current),), "triphasic"), 8, spikes))
    held = [
        Responses(Pattern((e,), (float(i),), "triphasic"), 8, 0)
        for e in range(5)
        for i in np.linspace(0.5, 12.0, 24)
    ]
    held += [Responses(Pattern((2, 4), (i, -i), "triphasic"), 8, 0) for i in (1.0, 4.0, 9.0)]
    return fitting, held


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_logistic_baseline_predicts_what_scikit_learn_fits(seed: int) -> None:
    from sklearn.linear_model import LogisticRegression

    fitting, held = _trials(seed)
    ours = logistic_baseline(fitting, held, POSITIONS, cell=0)
    x = pattern_features(fitting, POSITIONS, 0)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    rows = np.repeat((x - mean) / scale, [r.trials for r in fitting], axis=0)
    labels = np.concatenate([[1] * r.spikes + [0] * (r.trials - r.spikes) for r in fitting])
    reference = LogisticRegression(C=1 / (2 * LOGISTIC_RIDGE), tol=1e-10, max_iter=10_000)
    reference.fit(rows, labels)
    theirs = reference.predict((pattern_features(held, POSITIONS, 0) - mean) / scale) == 1
    assert np.array_equal(ours, theirs)
    assert 0.2 < ours.mean() < 0.9  # both outcomes predicted: the comparison can fail
