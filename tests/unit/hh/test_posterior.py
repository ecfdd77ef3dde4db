"""Posterior summaries: the periodic angle's mean and SD against scipy's circular
statistics, the others against numpy's plain ones."""

from __future__ import annotations

import numpy as np
from scipy.stats import circmean, circstd

from substrates.backends.mea.cell import parameters
from substrates.models.hh.inference import Posterior


def test_spread_is_circular_for_the_angle_only() -> None:
    rng = np.random.default_rng(3)
    box = parameters(np.array([[-100.0, -50.0], [100.0, 50.0]]))
    low = np.array([p.low for p in box])
    high = np.array([p.high for p in box])
    samples = rng.uniform(low, high, (400, len(box)))
    samples[:, 6] = np.angle(np.exp(1j * rng.normal(np.pi - 0.05, 0.2, 400)))  # wraps at ±π
    mean, sd = Posterior(samples, np.zeros(400)).spread(box)
    expected = circmean(samples[:, 6], high=np.pi, low=-np.pi)
    assert np.isclose(np.angle(np.exp(1j * (mean[6] - expected))), 0, atol=1e-9)
    assert np.isclose(sd[6], circstd(samples[:, 6], high=np.pi, low=-np.pi), rtol=1e-9)
    assert abs(mean[6]) > 3.0  # near ±π, where a plain mean would say about 0
    others = [k for k in range(len(box)) if k != 6]
    assert np.allclose(mean[others], samples[:, others].mean(axis=0))
    assert np.allclose(sd[others], samples[:, others].std(axis=0))
