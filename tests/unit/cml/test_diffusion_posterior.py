"""The diffusion samplers against exact answers: with a Gaussian prior the denoiser is
known in closed form (E[x₀ | x_t] for x₀ ~ N(0, Σ)), so the reverse chain must reproduce Σ
and, with linear observations, SMC must reproduce the Kalman posterior."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.models.cml.diffusion.posterior import dps, pnp, smc
from substrates.models.cml.diffusion.schedule import alpha_bar, noised, reverse_step, tweedie

torch = pytest.importorskip("torch")

GRID = (3, 4)


def _covariance(grid: tuple[int, int] = GRID) -> np.ndarray:
    """Squared-exponential covariance of a grid (length 1.5 cells), plus jitter."""
    y, x = np.meshgrid(np.arange(grid[0]), np.arange(grid[1]), indexing="ij")
    points = np.stack([y.ravel(), x.ravel()], 1)
    d2 = ((points[:, None] - points[None]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * 1.5**2)) + 0.05 * np.eye(len(points))


def _gaussian_noise(covariance: np.ndarray):
    """The exact ε̂(x_t, t) for x₀ ~ N(0, Σ): x̂₀ = √ᾱ Σ (ᾱΣ + (1 − ᾱ)I)⁻¹ x_t."""
    sigma = torch.as_tensor(covariance)
    eye = torch.eye(len(covariance), dtype=torch.float64)

    def noise(x_t, t):
        a = alpha_bar(t[0]).double()
        gain = a.sqrt() * sigma @ torch.linalg.inv(a * sigma + (1 - a) * eye)
        flat = x_t.reshape(len(x_t), -1)
        x0 = flat @ gain.T
        return ((flat - a.sqrt() * x0) / (1 - a).sqrt()).reshape(x_t.shape)

    return noise


def _zero(x0):
    return x0.new_zeros(len(x0)) + 0.0 * x0.sum((1, 2))


def test_tweedie_inverts_the_forward_process_and_the_reverse_step_is_the_posterior() -> None:
    generator = torch.Generator().manual_seed(0)
    x0 = torch.randn(5, *GRID, generator=generator, dtype=torch.float64)
    noise = torch.randn(5, *GRID, generator=generator, dtype=torch.float64)
    t = torch.full((5,), 0.6, dtype=torch.float64)
    assert torch.allclose(tweedie(noised(x0, t, noise), t, noise), x0)
    # q(x_s | x_t, x0) by Bayes on scalars: prior x_s ~ N(√ᾱ_s x0, 1 − ᾱ_s), x_t | x_s ~
    # N(√(ᾱ_t/ᾱ_s) x_s, 1 − ᾱ_t/ᾱ_s)
    t_, s_ = 0.6, 0.4
    a_t = float(alpha_bar(torch.tensor(t_, dtype=torch.float64)))
    a_s = float(alpha_bar(torch.tensor(s_, dtype=torch.float64)))
    ratio = a_t / a_s
    precision = 1 / (1 - a_s) + ratio / (1 - ratio)
    step = reverse_step(t_, s_)
    assert step.sigma**2 == pytest.approx(1 / precision)
    assert step.c0 == pytest.approx(np.sqrt(a_s) / (1 - a_s) / precision)
    assert step.ct == pytest.approx(np.sqrt(ratio) / (1 - ratio) / precision)


def test_the_reverse_chain_with_the_exact_denoiser_samples_the_prior() -> None:
    covariance = _covariance()
    generator = torch.Generator().manual_seed(1)
    draws = dps(
        _gaussian_noise(covariance),
        _zero,
        (4000, *GRID),
        steps=200,
        scale=0.0,
        generator=generator,
        dtype=torch.float64,
    )
    flat = draws.x0.reshape(4000, -1).numpy()
    assert np.abs(flat.mean(0)).max() < 0.08
    assert np.abs(np.cov(flat.T) - covariance).max() < 0.12


def _paths() -> np.ndarray:
    """Averages of the grid along three "paths" (3, cells)."""
    forward = np.zeros((3, GRID[0] * GRID[1]))
    forward[0, [0, 1, 2, 3]] = 0.25
    forward[1, [1, 5, 9]] = 1 / 3
    forward[2, [6, 7, 11]] = 1 / 3
    return forward


def _path_potential(forward: np.ndarray, data: np.ndarray, sigma: float):
    """Φ(x0) = ½‖(forward·x0 − data)/σ‖² per row."""
    h, y = torch.as_tensor(forward), torch.as_tensor(data)

    def potential(x0):
        residual = (x0.reshape(len(x0), -1) @ h.T - y) / sigma
        return 0.5 * (residual**2).sum(1)

    return potential


def _linear_problem():
    covariance = _covariance()
    rng = np.random.default_rng(7)
    forward = _paths()
    sigma = 0.2
    truth = rng.multivariate_normal(np.zeros(len(covariance)), covariance)
    data = forward @ truth + sigma * rng.normal(size=3)
    posterior_cov = np.linalg.inv(np.linalg.inv(covariance) + forward.T @ forward / sigma**2)
    posterior_mean = posterior_cov @ forward.T @ data / sigma**2
    return covariance, _path_potential(forward, data, sigma), posterior_mean, posterior_cov


@pytest.mark.science
def test_smc_reaches_the_kalman_posterior() -> None:
    """128 independent runs of 256 particles: their mean is the posterior mean within four
    standard errors (and 0.06), the variance within 15 % (100 reverse steps shrink the
    prior's variance a little)."""
    covariance, potential, mean, cov = _linear_problem()
    generator = torch.Generator().manual_seed(2)
    runs, particles = 128, 256
    out = smc(
        _gaussian_noise(covariance),
        potential,
        (runs, *GRID),
        steps=100,
        particles=particles,
        generator=generator,
        dtype=torch.float64,
    )
    assert np.allclose(out.weights.sum(1).numpy(), 1)
    x = out.x0.reshape(runs, particles, -1).numpy()
    w = out.weights.numpy()[..., None]
    run_means = (w * x).sum(1)
    estimate = run_means.mean(0)
    standard_error = run_means.std(0) / np.sqrt(runs)
    assert np.all(np.abs(estimate - mean) < 4 * standard_error)
    assert np.abs(estimate - mean).max() < 0.06
    variance = ((w * x**2).sum(1) - run_means**2).mean(0) + run_means.var(0)
    assert np.allclose(variance, np.diag(cov), rtol=0.15)
    # the weights stay spread most of the way (the proposal's mismatch grows on the last,
    # narrowest steps: down to ~15 of 256 there)
    assert float(out.ess.median()) > particles / 4


def test_smc_stays_in_range_when_the_likelihood_is_sharp_and_far_from_the_prior() -> None:
    """Paths measured to 0.002 far out in the prior's tail (as hundreds of links at 0.3 dB
    are): a gradient-step proposal jumps by ~10⁴ and leaves every draw at `clip`'s bound;
    the proximal proposal lands on the data. 32 particles' mean is within 0.05 of the
    Kalman mean on the observed paths and no draw touches the bound."""
    covariance, forward = _covariance(), _paths()
    data = np.array([2.0, 1.5, 2.2])
    potential = _path_potential(forward, data, 0.002)
    generator = torch.Generator().manual_seed(5)
    out = smc(
        _gaussian_noise(covariance),
        potential,
        (4, *GRID),
        steps=50,
        particles=32,
        clip=(-6.0, 6.0),
        generator=generator,
        dtype=torch.float64,
    )
    x = out.x0.reshape(4, 32, -1).numpy()
    assert np.abs(x).max() < 5.9
    means = (out.weights.numpy()[..., None] * x).sum(1)
    assert np.abs(means @ forward.T - data).max() < 0.05


def test_dps_moves_towards_the_data_but_smc_is_closer_to_the_exact_posterior() -> None:
    covariance, potential, mean, _ = _linear_problem()
    noise = _gaussian_noise(covariance)
    generator = torch.Generator().manual_seed(3)
    guided = dps(
        noise,
        potential,
        (1, *GRID),
        steps=100,
        scale=0.5,
        samples=2000,
        generator=generator,
        dtype=torch.float64,
    )
    dps_mean = guided.x0.reshape(2000, -1).numpy().mean(0)
    prior_error = np.abs(mean).max()
    assert np.abs(dps_mean - mean).max() < 0.6 * prior_error
    fit = float(potential(guided.x0.reshape(2000, *GRID)).mean())
    prior_draws = dps(
        noise,
        potential,
        (1, *GRID),
        steps=100,
        scale=0.0,
        samples=2000,
        generator=generator,
        dtype=torch.float64,
    )
    assert fit < float(potential(prior_draws.x0.reshape(2000, *GRID)).mean()) / 2


def test_pnp_reaches_the_posterior_mean_and_fits_the_data() -> None:
    """DiffPIR with the exact denoiser: its mean is near the Kalman mean (within 15 % of the
    prior's distance from it; 7 % measured), its draws fit the data better than the
    prior's and keep a spread, under the exact posterior's (0.7 of it measured: DiffPIR is
    underdispersed) but not collapsed to one optimum."""
    covariance, potential, mean, cov = _linear_problem()
    noise = _gaussian_noise(covariance)
    generator = torch.Generator().manual_seed(4)
    out = pnp(
        noise,
        potential,
        (1, *GRID),
        steps=50,
        samples=2000,
        iterations=30,
        rate=0.05,
        generator=generator,
        dtype=torch.float64,
    )
    draws = out.x0.reshape(2000, -1).numpy()
    assert np.abs(draws.mean(0) - mean).max() < 0.15 * np.abs(mean).max()
    prior = dps(
        noise,
        potential,
        (1, *GRID),
        steps=50,
        scale=0.0,
        samples=2000,
        generator=generator,
        dtype=torch.float64,
    )
    fitted = float(potential(out.x0.reshape(2000, *GRID)).mean())
    assert fitted < float(potential(prior.x0.reshape(2000, *GRID)).mean()) / 2
    spread = draws.std(0) / np.sqrt(np.diag(cov))
    assert np.all((spread > 0.5) & (spread < 1.05))


def test_pnp_refuses_a_share_of_fresh_noise_outside_zero_to_one() -> None:
    with pytest.raises(ValueError, match="zeta"):
        pnp(_gaussian_noise(_covariance()), _zero, (1, *GRID), steps=2, zeta=1.5)


def test_pnp_with_the_offsets_redrawn_reaches_the_joint_posterior() -> None:
    """The latent-offset structure (`--baseline latent`) on the Gaussian toy: four maps seen
    through the three paths at σ 0.2, every path offset by one shared b ~ N(0, 1). PnP
    with b redrawn from its conditional after each proximal step (`refresh`) against the
    exact joint posterior (51 unknowns): the maps' and offsets' means within 0.5 posterior
    SD (0.30–0.36 measured over four seeds: DiffPIR is approximate), the offsets' spread
    under the exact one (0.7–0.8 measured) but not collapsed; with b held at 0 the maps'
    means are more than 2 SD off (3.1 measured)."""
    covariance, forward = _covariance(), _paths()
    rng = np.random.default_rng(8)
    maps, paths, cells, sigma, samples = 4, 3, GRID[0] * GRID[1], 0.2, 500
    truth = rng.multivariate_normal(np.zeros(cells), covariance, size=maps)
    data = truth @ forward.T + np.array([1.0, -0.8, 0.6]) + sigma * rng.normal(size=(maps, 3))
    design = np.zeros((maps * paths, maps * cells + paths))  # unknowns: x_1..x_4, b
    prior = np.eye(maps * cells + paths)
    for m in range(maps):
        design[m * paths : (m + 1) * paths, m * cells : (m + 1) * cells] = forward
        design[m * paths : (m + 1) * paths, maps * cells :] = np.eye(paths)
        prior[m * cells : (m + 1) * cells, m * cells : (m + 1) * cells] = np.linalg.inv(covariance)
    joint = np.linalg.inv(prior + design.T @ design / sigma**2)
    exact = joint @ design.T @ data.ravel() / sigma**2
    spread = np.sqrt(np.diag(joint))
    h, y = torch.as_tensor(forward), torch.as_tensor(data)

    def run(gibbs: bool) -> tuple[np.ndarray, np.ndarray]:
        offset = torch.zeros(samples, paths, dtype=torch.float64)
        generator = torch.Generator().manual_seed(9)

        def potential(x0):  # rows (map, sample), samples fastest
            modelled = x0.reshape(maps, samples, -1) @ h.T + offset
            return 0.5 * (((modelled - y[:, None]) / sigma) ** 2).sum(-1).reshape(-1)

        def refresh(x0):
            residual = (y[:, None] - x0.reshape(maps, samples, -1) @ h.T).sum(0)
            precision = 1 + maps / sigma**2
            noise = torch.randn(samples, paths, generator=generator, dtype=torch.float64)
            offset.copy_(residual / sigma**2 / precision + noise / precision**0.5)

        out = pnp(
            _gaussian_noise(covariance),
            potential,
            (maps, *GRID),
            steps=50,
            samples=samples,
            iterations=30,
            generator=generator,
            dtype=torch.float64,
            refresh=refresh if gibbs else None,
        )
        return out.x0.reshape(maps, samples, -1).numpy(), offset.numpy()

    x, b = run(gibbs=True)
    found = np.r_[x.mean(1).ravel(), b.mean(0)]
    assert (np.abs(found - exact) / spread).max() < 0.5
    ratio = b.std(0) / spread[-paths:]
    assert np.all((ratio > 0.5) & (ratio < 1.05))
    held, _ = run(gibbs=False)
    assert (np.abs(held.mean(1).ravel() - exact[:-paths]) / spread[:-paths]).max() > 2
