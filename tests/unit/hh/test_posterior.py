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


def test_a_leaking_posterior_ranks_its_samples_as_the_normalised_one_does(
    tmp_path, monkeypatch
) -> None:
    """inference.trained leaves the log densities unnormalised. On a flow trained alike,
    observed past the prior's edge (so part of its mass leaks outside), normalising only
    adds one constant to every sample's log density: the ranking is the same. trained's
    samples lie inside the prior, with finite densities."""
    import torch
    from sbi.inference import NPE
    from sbi.utils import BoxUniform

    from substrates.models.hh.inference import trained

    monkeypatch.chdir(tmp_path)  # sbi's default tracker writes its logs here
    rng = np.random.default_rng(0)
    theta = rng.uniform(0.0, 1.0, (400, 2))
    x = theta + rng.normal(0.0, 0.05, theta.shape)
    x_o = np.array([1.12, 0.5])  # past the prior's edge in the first parameter
    ours = trained(theta, x, np.zeros(2), np.ones(2), x_o, seed=1, samples=200)
    torch.manual_seed(1)
    prior = BoxUniform(torch.zeros(2), torch.ones(2))
    inference = NPE(prior=prior, show_progress_bars=False)
    inference.append_simulations(torch.as_tensor(theta).float(), torch.as_tensor(x).float())
    posterior = inference.build_posterior(inference.train(show_train_summary=False))
    drawn = torch.as_tensor(ours.samples, dtype=torch.float32)
    observed = torch.as_tensor(x_o, dtype=torch.float32)
    normalised = posterior.log_prob(drawn, x=observed).numpy()
    plain = posterior.log_prob(drawn, x=observed, norm_posterior=False).numpy()
    shift = normalised - plain
    assert np.ptp(shift) < 1e-4 and shift.mean() > 0.1  # a real leak, one constant
    assert np.all((ours.samples >= 0) & (ours.samples <= 1))
    assert np.isfinite(ours.log_density).all()
