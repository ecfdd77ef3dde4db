"""The study's cluster-aware interval against SciPy's bootstrap: with every outcome its own
cluster it is the ordinary percentile bootstrap of the outcomes; with equal sessions of one
cell each it is the percentile bootstrap of the sessions' proportions."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.models.hh.report import cluster_interval


@pytest.mark.parametrize("seed", [0, 1])
def test_the_cluster_interval_is_scipys_bootstrap_where_they_should_agree(seed: int) -> None:
    from scipy.stats import bootstrap

    rng = np.random.default_rng(seed)
    outcomes = rng.random(300) < 0.85
    ours = cluster_interval(outcomes, list(range(300)), [0] * 300, replicates=20_000)
    theirs = bootstrap((outcomes.astype(float),), np.mean, n_resamples=20_000, method="percentile")
    assert ours == pytest.approx(tuple(theirs.confidence_interval), abs=0.01)

    sessions = np.repeat(np.arange(12), 25)  # 12 sessions of 25 outcomes, rates differing
    rates = rng.uniform(0.3, 1.0, 12)[sessions]
    outcomes = rng.random(len(sessions)) < rates
    ours = cluster_interval(outcomes, sessions, sessions, replicates=20_000)
    means = np.array([outcomes[sessions == s].mean() for s in range(12)])
    theirs = bootstrap((means,), np.mean, n_resamples=20_000, method="percentile")
    assert ours == pytest.approx(tuple(theirs.confidence_interval), abs=0.015)
    naive = cluster_interval(outcomes, list(range(len(outcomes))), [0] * len(outcomes))
    assert ours[1] - ours[0] > 1.2 * (naive[1] - naive[0])  # clustering widens it
