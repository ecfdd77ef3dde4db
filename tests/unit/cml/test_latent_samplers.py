"""The latent-space samplers against the Kalman posterior on issue #46's toy: a Gaussian
prior on a 2 × 5 grid (its exact denoiser in closed form), one point observation and one
path mean at σ = 0.1. Each of 64 independent runs gives a weighted (SMC) or a chain's
(replica exchange) estimate; their mean must match the exact posterior mean and variance
within four standard errors in every cell."""

from __future__ import annotations

import numpy as np
import pytest

from .test_diffusion_posterior import _covariance, _gaussian_noise

torch = pytest.importorskip("torch")

from substrates.models.cml.diffusion.latent import (  # noqa: E402
    chain_ess,
    ddim_decode,
    ladder,
    replica_exchange,
    tempered_smc,
)

TOY = (2, 5)
SIGMA = 0.1
RUNS, DRAWS = 64, 128


def _toy():
    covariance = _covariance(TOY)
    forward = np.zeros((2, 10))
    forward[0, 3] = 1.0  # a point (a rain gauge, or a very short link)
    forward[1, :5] = 0.2  # the mean along the first row (a link)
    rng = np.random.default_rng(7)
    truth = rng.multivariate_normal(np.zeros(10), covariance)
    data = forward @ truth + SIGMA * rng.normal(size=2)
    cov = np.linalg.inv(np.linalg.inv(covariance) + forward.T @ forward / SIGMA**2)
    mean = cov @ forward.T @ data / SIGMA**2
    h, y = torch.as_tensor(forward), torch.as_tensor(data)

    def potential(x0):
        residual = (x0.reshape(len(x0), -1) @ h.T - y) / SIGMA
        return 0.5 * (residual**2).sum(1)

    return _gaussian_noise(covariance), potential, mean, cov


def _assert_kalman(x0, weights, mean, cov) -> None:
    """Run estimates (weighted means, second moments) pooled over runs: within 4 SE."""
    x = x0.reshape(RUNS, -1, 10).numpy()
    w = weights.numpy()[..., None]
    run_means, run_squares = (w * x).sum(1), (w * x**2).sum(1)
    estimate = run_means.mean(0)
    assert np.all(np.abs(estimate - mean) < 4 * run_means.std(0) / np.sqrt(RUNS))
    variance = run_squares.mean(0) - estimate**2
    # the delta method's standard error of E[x²] − E[x]²
    spread = (run_squares - 2 * estimate * run_means).std(0) / np.sqrt(RUNS)
    assert np.all(np.abs(variance - np.diag(cov)) < 4 * spread)
    assert np.allclose(np.sqrt(variance), np.sqrt(np.diag(cov)), rtol=0.04)


def test_the_deterministic_decoder_pushes_the_latent_normal_onto_the_prior() -> None:
    """With the exact denoiser G is linear: G Gᵀ is the decoded prior's covariance."""
    covariance = _covariance(TOY)
    noise = _gaussian_noise(covariance)
    basis = torch.eye(10, dtype=torch.float64).reshape(10, *TOY)
    errors = []
    for steps in (25, 100, 400):
        g = ddim_decode(noise, basis, steps).reshape(10, 10).numpy().T
        errors.append(np.abs(g @ g.T - covariance).max())
    assert errors[1] < 0.04 and errors[2] < errors[1] < errors[0]


def test_tempered_smc_reaches_the_kalman_posterior_with_half_its_particles_effective() -> None:
    noise, potential, mean, cov = _toy()
    out = tempered_smc(
        noise,
        potential,
        (RUNS, *TOY),
        steps=100,
        particles=DRAWS,
        moves=5,
        generator=torch.Generator().manual_seed(2),
        dtype=torch.float64,
    )
    assert np.allclose(out.weights.sum(1).numpy(), 1)
    _assert_kalman(out.x0, out.weights, mean, cov)
    assert float(out.ess.min()) >= DRAWS / 2 - 1  # each reweighting keeps half
    assert len(out.ess) >= 2  # the likelihood is too sharp for one step


def test_replica_exchange_reaches_the_kalman_posterior_and_reports_its_swaps() -> None:
    noise, potential, mean, cov = _toy()
    out = replica_exchange(
        noise,
        potential,
        (RUNS, *TOY),
        steps=100,
        draws=DRAWS,
        temperatures=6,
        burn_in=100,
        thin=2,
        coldest_share=1e-2,
        generator=torch.Generator().manual_seed(2),
        dtype=torch.float64,
    )
    _assert_kalman(out.x0, out.weights, mean, cov)
    assert np.allclose(out.betas, np.geomspace(1, 1e-2, 6))
    assert out.swap_acceptance.shape == (5,) and np.all(
        (out.swap_acceptance > 0.2) & (out.swap_acceptance < 1)
    )
    assert float(out.ess.min()) > 10


def test_chain_ess_of_an_autoregressive_chain() -> None:
    """AR(1) with coefficient φ: ESS = n(1 − φ)/(1 + φ)."""
    rng = np.random.default_rng(0)
    n, phi = 4000, 0.8
    x = np.zeros((16, n))
    noise = rng.normal(size=(16, n))
    for i in range(1, n):
        x[:, i] = phi * x[:, i - 1] + noise[:, i]
    ess = float(chain_ess(torch.as_tensor(x)).mean())
    assert ess == pytest.approx(n * (1 - phi) / (1 + phi), rel=0.1)


def test_ladder_and_refusals() -> None:
    assert ladder(1) == [1.0]
    assert ladder(3, 0.01) == pytest.approx([1.0, 0.1, 0.01])
    with pytest.raises(ValueError, match="at least one temperature"):
        ladder(0)
    noise, potential, _, _ = _toy()
    with pytest.raises(ValueError, match="did not reach β = 1 in 1 stages"):
        tempered_smc(
            noise, potential, (2, *TOY), steps=5, particles=8, max_stages=1, dtype=torch.float64
        )
