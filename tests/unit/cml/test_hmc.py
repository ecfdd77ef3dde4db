"""HMC against exact posteriors: a linear-Gaussian problem and the prior alone."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.models.cml.hmc import hmc

torch = pytest.importorskip("torch")


def _draws(potential, dim: int, chains: int, iterations: int, warmup: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    initial = torch.randn(chains, dim, generator=generator, dtype=torch.float64)
    kept = []
    result = hmc(
        potential,
        initial,
        iterations,
        warmup,
        leapfrog=10,
        step=0.1,
        generator=generator,
        on_sample=lambda v: kept.append(v.clone()),
    )
    return torch.cat(kept).numpy(), result


def test_linear_gaussian_posterior_mean_and_covariance_are_exact() -> None:
    rng = np.random.default_rng(3)
    dim, observations, sigma = 12, 5, 0.3
    forward = rng.normal(size=(observations, dim))
    data = rng.normal(size=observations) * 3
    precision = np.eye(dim) + forward.T @ forward / sigma**2
    covariance = np.linalg.inv(precision)
    mean = covariance @ forward.T @ data / sigma**2
    f, y = torch.as_tensor(forward), torch.as_tensor(data)

    def potential(v):
        return 0.5 * (((v @ f.T) - y) ** 2).sum(-1) / sigma**2

    draws, result = _draws(potential, dim, chains=200, iterations=600, warmup=200)
    assert 0.5 < float(result.acceptance.mean()) < 0.9
    scale = np.sqrt(np.diag(covariance))
    assert np.abs(draws.mean(0) - mean).max() < 0.15 * scale.max() + 0.02
    assert np.abs(np.cov(draws.T) - covariance).max() < 0.1 * covariance.diagonal().max()


def test_without_a_likelihood_every_proposal_is_accepted_and_draws_are_standard_normal() -> None:
    draws, result = _draws(lambda v: 0.0 * v.sum(-1), 500, chains=8, iterations=300, warmup=50)
    assert torch.allclose(result.acceptance, torch.ones(8, dtype=torch.float64))
    assert abs(draws.mean()) < 0.02 and abs(draws.var() - 1) < 0.03


def test_warmup_must_leave_iterations() -> None:
    with pytest.raises(ValueError, match="warmup"):
        hmc(lambda v: v.sum(-1), torch.zeros(1, 2), iterations=5, warmup=5)
