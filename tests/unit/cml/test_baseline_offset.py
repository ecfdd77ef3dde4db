"""Each link's dry-reference error as a latent variable: its Gibbs conditional against the
Gaussian conditioning formula, and HMC with that Gibbs step against an exact joint
posterior (#46 item 2)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.cml.network import random_network
from substrates.models.cml.baseline_offset import BaselineOffsets
from substrates.models.cml.bayesian import BayesianSettings
from substrates.models.cml.grid import Grid
from substrates.models.cml.hmc import hmc
from substrates.models.cml.likelihood import LinkLikelihood
from substrates.models.cml.path_operator import PathOperator

torch = pytest.importorskip("torch")


def _operator() -> PathOperator:
    network = random_network(5, 20.0, np.random.default_rng(4))
    grid = Grid(network.origin, 1.0, 20, 20)
    ends = (network.x0, network.y0, network.x1, network.y1)
    return PathOperator(
        ends, network.frequency, network.polarization, grid, samples=30, dtype=torch.float64
    )


def test_the_offsets_conditional_is_gaussian_conditioning_on_each_sublinks_data() -> None:
    """Three maps × two chains, one sublink missing in one map, two maps held dry: the
    draws' mean and variance per (chain, sublink) against the covariance-form answer
    s²1ᵀ(s²11ᵀ + D)⁻¹z, s² − s⁴1ᵀ(s²11ᵀ + D)⁻¹1, with z the data less the modelled
    attenuation (the dry maps' data as they are)."""
    rng = np.random.default_rng(5)
    operator = _operator()
    maps, chains, sd = 3, 2, 0.8
    rain = torch.as_tensor(rng.gamma(0.5, 4.0, (maps * chains, 20, 20)))
    modelled = operator.attenuation(rain, 14.0).numpy()
    observed = modelled + 1.3 + rng.normal(0, 0.4, modelled.shape)
    observed[2, 1, 0] = np.nan  # map 1, chain 0: missing
    dry = rng.normal(1.3, 0.4, (2, *modelled.shape[1:]))
    dry[0, 3, 1] = np.nan
    likelihood = LinkLikelihood.of(operator, observed, 0.3, 0.1, 14.0)
    offsets = BaselineOffsets.of(likelihood, sd, chains, dry, 0.3, 0.1)
    generator = torch.Generator().manual_seed(0)
    drawn = [offsets.draw(likelihood, rain, generator) for _ in range(2500)]
    assert all(antennas is None for _, antennas in drawn)  # A_max is not latent here
    draws = torch.stack([d for d, _ in drawn]).numpy()
    assert np.array_equal(draws[:, 0], draws[:, 2]) and np.array_equal(draws[:, 1], draws[:, 3])
    for chain in range(chains):
        for link, sub in np.ndindex(*modelled.shape[1:]):
            rows = np.arange(chain, maps * chains, chains)
            z = np.concatenate([observed[rows, link, sub] - modelled[rows, link, sub]])
            z = np.concatenate([z, dry[:, link, sub]])
            y = np.concatenate([observed[rows, link, sub], dry[:, link, sub]])
            kept = np.isfinite(z)
            z, y = z[kept], y[kept]
            noise = np.diag((0.3 + 0.1 * y.clip(0)) ** 2)
            gram = sd**2 * np.ones((len(z), len(z))) + noise
            ones = np.ones(len(z))
            mean = sd**2 * ones @ np.linalg.solve(gram, z)
            variance = sd**2 - sd**4 * ones @ np.linalg.solve(gram, ones)
            sample = draws[:, chain, link, sub]
            assert abs(sample.mean() - mean) < 4 * np.sqrt(variance / len(sample))
            assert abs(sample.var() / variance - 1) < 0.1


def test_the_offsets_and_wet_antennas_joint_conditional_is_bivariate_gaussian() -> None:
    """With a latent A_max per sublink: 400 chains on the same three maps (and one dry
    map), 60 Gibbs sweeps each; the last sweep's (offset, A_max) per sublink against the
    exact bivariate Gaussian conditional, precision diag(1/sd_b², 1/sd_a²) + Σ xxᵀ/σ² with
    x = (1, s) and s Pastorek's shape of the path rain (0 on the dry map), the prior about
    (0, 14 dB). The data's A_max, 9 dB, keeps the cut at 0 out of reach."""
    rng = np.random.default_rng(8)
    operator = _operator()
    maps, chains, sd_b, sd_a = 3, 400, 0.8, 4.0
    rain = torch.as_tensor(rng.gamma(0.6, 5.0, (maps, 20, 20))).repeat_interleave(chains, 0)
    likelihood = LinkLikelihood.of(operator, np.zeros((maps * chains, 5, 2)), 0.3, 0.1, 14.0)
    rain_db = operator.attenuation(rain).numpy()
    shape = np.broadcast_to(likelihood.wet_antenna_shape(rain).numpy(), rain_db.shape)
    observed = (
        rain_db
        + 9.0 * shape
        + 1.3
        + rng.normal(0, 0.3, (maps, 1, 5, 2)).repeat(chains, 1).reshape(rain_db.shape)
    )
    dry = rng.normal(1.3, 0.3, (1, 5, 2))
    likelihood = LinkLikelihood.of(operator, observed, 0.3, 0.1, 14.0)
    offsets = BaselineOffsets.of(likelihood, sd_b, chains, dry, 0.3, 0.1, antenna_sd_db=sd_a)
    generator = torch.Generator().manual_seed(2)
    for _ in range(60):
        likelihood.offset_db, likelihood.wet_antenna_db = offsets.draw(likelihood, rain, generator)
    b = likelihood.offset_db.numpy()[:chains]
    a = likelihood.wet_antenna_db.numpy()[:chains]
    for link, sub in np.ndindex(5, 2):
        rows = np.arange(maps) * chains
        x = np.c_[np.ones(maps + 1), np.r_[shape[rows, link, sub], 0.0]]
        y = np.r_[observed[rows, link, sub], dry[0, link, sub]]
        z = y - np.r_[rain_db[rows, link, sub], 0.0]
        weight = (0.3 + 0.1 * y.clip(0)) ** -2
        precision = np.diag([sd_b**-2, sd_a**-2]) + (x.T * weight) @ x
        covariance = np.linalg.inv(precision)
        mean = covariance @ (np.array([0.0, 14.0 / sd_a**2]) + (x.T * weight) @ z)
        sample = np.c_[b[:, link, sub], a[:, link, sub]]
        error = (sample.mean(0) - mean) / np.sqrt(np.diag(covariance) / chains)
        assert np.abs(error).max() < 4, (link, sub, error)
        ratio = np.diag(np.cov(sample.T)) / np.diag(covariance)
        assert np.abs(ratio - 1).max() < 0.3, (link, sub, ratio)
        exact_r = covariance[0, 1] / np.sqrt(covariance[0, 0] * covariance[1, 1])
        assert abs(np.corrcoef(sample.T)[0, 1] - exact_r) < 0.15, (link, sub)


def test_a_latent_wet_antenna_never_goes_below_zero() -> None:
    """The cut normal's draws (mean −1, sd 1, cut at 0) against scipy's truncnorm."""
    from scipy.stats import truncnorm

    from substrates.models.cml.baseline_offset import _above_zero

    mean = torch.full((200_000,), -1.0, dtype=torch.float32)
    draws = _above_zero(mean, torch.ones_like(mean), torch.Generator().manual_seed(3)).numpy()
    exact = truncnorm(1.0, np.inf, loc=-1.0, scale=1.0)
    assert draws.min() >= 0 and draws.dtype == np.float32
    assert abs(draws.mean() - exact.mean()) < 4 * exact.std() / np.sqrt(len(draws))
    assert abs(draws.std() / exact.std() - 1) < 0.02


def test_hmc_with_the_gibbs_refresh_samples_an_exact_joint_posterior() -> None:
    """A linear-Gaussian toy with the structure of the latent offsets: four maps v_t
    (standard normal, 3 values each) seen through H (2 × 3) with noise 0.5, all offset by
    one shared b ~ N(0, 1) per observation channel. HMC over the maps with b redrawn from
    its conditional after every transition gives the joint posterior's mean and spread
    of the maps (exact: a Gaussian in 16 unknowns); with b held at 0 the means are far off."""
    rng = np.random.default_rng(6)
    maps, dim, channels, sigma, sd = 4, 3, 2, 0.5, 1.0
    forward = rng.normal(size=(channels, dim))
    truth_b = np.array([1.5, -1.0])
    data = rng.normal(size=(maps, dim)) @ forward.T + truth_b + rng.normal(0, sigma, (maps, 2))
    design = np.zeros((maps * channels, maps * dim + channels))  # unknowns: v_1..v_4, b
    for t in range(maps):
        design[t * channels : (t + 1) * channels, t * dim : (t + 1) * dim] = forward
        design[t * channels : (t + 1) * channels, maps * dim :] = np.eye(channels)
    prior = np.r_[np.ones(maps * dim), np.full(channels, sd**-2)]
    precision = np.diag(prior) + design.T @ design / sigma**2
    covariance = np.linalg.inv(precision)
    exact = covariance @ design.T @ data.ravel() / sigma**2
    f, y = torch.as_tensor(forward), torch.as_tensor(data)
    chains = 128
    generator = torch.Generator().manual_seed(1)

    def run(gibbs: bool) -> tuple[np.ndarray, np.ndarray]:
        offset = torch.zeros(chains, channels, dtype=torch.float64)

        def potential(v):  # rows: (chain, map), maps fastest
            residual = y - v.reshape(chains, maps, dim) @ f.T - offset[:, None]
            return 0.5 * (residual**2).sum(-1).reshape(-1) / sigma**2

        def refresh(v):
            residual = (y - v.reshape(chains, maps, dim) @ f.T).sum(1)
            p = sd**-2 + maps / sigma**2
            noise = torch.randn(chains, channels, generator=generator, dtype=torch.float64)
            offset.copy_(residual / sigma**2 / p + noise / p**0.5)

        kept_v, kept_b = [], []
        initial = torch.randn(chains * maps, dim, generator=generator, dtype=torch.float64)
        hmc(
            potential,
            initial,
            250,
            100,
            leapfrog=8,
            step=0.2,
            generator=generator,
            on_sample=lambda v: (
                kept_v.append(v.reshape(chains, -1).clone()),
                kept_b.append(offset.clone()),
            ),
            refresh=refresh if gibbs else None,
        )
        return torch.cat(kept_v).numpy(), torch.cat(kept_b).numpy()

    draws_v, draws_b = run(gibbs=True)
    spread = np.sqrt(np.diag(covariance))
    draws = np.concatenate([draws_v, draws_b], axis=1)
    assert (np.abs(draws.mean(0) - exact) / spread).max() < 0.1
    assert np.abs(draws.std(0) / spread - 1).max() < 0.1
    held, _ = run(gibbs=False)
    assert (np.abs(held.mean(0) - exact[:-channels]) / spread[:-channels]).max() > 0.3


def test_latent_offsets_read_no_censored_zeros() -> None:
    with pytest.raises(ValueError, match="dry_limit_db must be None"):
        BayesianSettings(offset_sd_db=1.0)
    with pytest.raises(ValueError, match="drawn with the latent offsets"):
        BayesianSettings(antenna_sd_db=3.0)
    with pytest.raises(ValueError, match="above 0"):
        BayesianSettings(
            offset_sd_db=1.0, dry_limit_db=None, antenna_sd_db=3.0, wet_antenna_max_db=0.0
        )
    with pytest.raises(ValueError, match="positive"):
        BayesianSettings(offset_sd_db=0.0, dry_limit_db=None)
    operator = _operator()
    observed = np.zeros(
        (1, *operator.attenuation(torch.zeros(1, 20, 20, dtype=torch.float64)).shape[1:])
    )
    censored = LinkLikelihood.of(operator, observed, 0.3, 0.1, 0.0, dry_limit_db=3.0)
    with pytest.raises(ValueError, match="no censoring"):
        BaselineOffsets.of(censored, 1.0, 1, observed[:0], 0.3, 0.1)


def test_only_pnp_takes_latent_offsets_and_they_read_no_censored_zeros() -> None:
    from substrates.models.cml.diffusion.settings import DiffusionSettings

    DiffusionSettings(offset_sd_db=0.5, dry_limit_db=None)
    with pytest.raises(ValueError, match="not smc's"):
        DiffusionSettings(sampler="smc", offset_sd_db=0.5, dry_limit_db=None)
    with pytest.raises(ValueError, match="dry_limit_db must be None"):
        DiffusionSettings(offset_sd_db=0.5)
    with pytest.raises(ValueError, match="positive"):
        DiffusionSettings(offset_sd_db=-1.0, dry_limit_db=None)


def test_latent_settings_reach_pnp_and_censor_nothing() -> None:
    """--baseline latent (the default) gives the diffusion settings the offsets' prior SD
    and no censoring; reading the chain's output they keep the 3 dB limit and no offsets.
    The default refuses the samplers and diagnostics that cannot take it, naming the way
    out."""
    from pydantic import ValidationError

    from substrates.adapters.methods.cml_reconstruct import CmlReconstructParameters

    chain = CmlReconstructParameters(baseline="chain").diffusion()
    latent = CmlReconstructParameters(strength=0.5).diffusion()
    for refused in ({"methods": "idw,smc"}, {"true_baseline": True}):
        with pytest.raises(ValidationError, match="add --baseline chain"):
            CmlReconstructParameters(**refused)  # type: ignore[arg-type]
        CmlReconstructParameters(**refused, baseline="chain")  # type: ignore[arg-type]
    assert (chain.offset_sd_db, latent.offset_sd_db) == (None, 0.5)
    assert latent.dry_limit_db is None and chain.dry_limit_db == 3.0
    assert latent.strength == 0.5
