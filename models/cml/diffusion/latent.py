"""Exact posterior samplers in the diffusion prior's latent space: tempered SMC and replica
exchange.

The deterministic reverse chain (DDIM with no fresh noise; Song et al., ICLR 2021) maps a
standard-normal latent z = x_1 to a field x₀ = G(z), and its pushforward of N(0, I) is the
diffusion prior (exactly so as the steps grow: the chain follows the probability-flow
ODE). The posterior of the field is then the pushforward of a density known up to a
constant,

    π_β(z) ∝ N(z; 0, I) · exp(−β Φ(G(z))),   β = 1,

so the classical samplers apply unchanged, without the approximations of guidance:

- `tempered_smc`: an SMC sampler from the prior (β = 0) to the posterior (β = 1), each
  next β chosen by bisection so that the effective sample size after reweighting is half
  the particles, then resampled (systematic) and moved by preconditioned Crank–Nicolson
  steps, which leave π_β invariant (Chopin 2002, "resample–move"; Cotter et al. 2013 for
  pCN). Consistent as the particles grow, with the effective sample size held at half.
- `replica_exchange`: chains at a ladder of likelihood temperatures β₁ = 1 > … > β_K,
  each moved by pCN, adjacent pairs proposing to swap states (accepted with
  min(1, exp((β_i − β_j)(Φ_i − Φ_j)))); the β = 1 chain's states after burn-in are the
  draws, and the swap acceptance of each adjacent pair is reported.

pCN proposes z′ = √(1 − ρ²)·z + ρ·ξ, ξ ~ N(0, I), which is reversible for the prior, and
accepts with min(1, exp(−β (Φ(G(z′)) − Φ(G(z))))): every move needs only the potential.
Each evaluation of Φ(G(z)) runs the whole reverse chain (`steps` network calls), so these
samplers cost far more network calls than plug-and-play — the price of exactness.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import torch

from .posterior import Noise, Potential, Samples, _systematic
from .schedule import alpha_bar, times, tweedie

TARGET_ACCEPTANCE = 0.3
"""pCN's step ρ is adapted towards this share of accepted proposals."""


def ddim_decode(noise: Noise, z: Any, steps: int, clip: tuple[float, float] | None = None) -> Any:
    """G(z): the deterministic reverse chain from x_1 = z (n, ny, nx) to x₀, `steps` steps;
    each x̂₀ clipped to `clip` (the data's range) where given."""
    x = z
    with torch.no_grad():
        for t, s in pairwise(times(steps)):
            time = torch.full((len(x),), t, dtype=x.dtype, device=x.device)
            epsilon = noise(x, time)
            x0 = tweedie(x, time, epsilon)
            if clip is not None:
                x0 = x0.clamp(*clip)
                a_t = alpha_bar(time).view(-1, *[1] * (x.dim() - 1))
                epsilon = (x - a_t.sqrt() * x0) / (1 - a_t).sqrt()  # consistent with x̂₀
            a_s = float(alpha_bar(torch.tensor(s, dtype=torch.float64)))
            x = math.sqrt(a_s) * x0 + math.sqrt(1 - a_s) * epsilon if s > 0 else x0
    return x


@dataclass
class _Chains:
    """Latent states z (n, ny, nx), their fields x₀ = G(z) and potentials Φ(x₀) (n,)."""

    z: Any
    x0: Any
    phi: Any

    def take(self, index: Any) -> _Chains:
        return _Chains(self.z[index], self.x0[index], self.phi[index])


def _evaluate(noise: Noise, potential: Potential, z: Any, steps: int, clip: Any) -> _Chains:
    x0 = ddim_decode(noise, z, steps, clip)
    with torch.no_grad():
        return _Chains(z, x0, potential(x0).double())


def _pcn(
    noise: Noise,
    potential: Potential,
    chains: _Chains,
    beta: Any,
    rho: Any,
    steps: int,
    clip: Any,
    generator: Any,
) -> tuple[_Chains, Any]:
    """One pCN move of every chain at inverse temperature beta (n,), step rho (n,):
    (the chains after it, whether each accepted)."""
    z = chains.z
    shape = (-1, *[1] * (z.dim() - 1))
    fresh = torch.randn(z.shape, generator=generator, dtype=z.dtype, device=z.device)
    r = rho.to(z.dtype).view(shape)
    proposed = _evaluate(noise, potential, (1 - r**2).sqrt() * z + r * fresh, steps, clip)
    log_ratio = -beta * (proposed.phi - chains.phi)
    uniform = torch.rand(len(z), generator=generator, dtype=torch.float64, device=z.device)
    accept = torch.log(uniform) < log_ratio
    where = accept.view(shape)
    moved = _Chains(
        torch.where(where, proposed.z, z),
        torch.where(where, proposed.x0, chains.x0),
        torch.where(accept, proposed.phi, chains.phi),
    )
    return moved, accept


def _adapted(rho: Any, accepted: Any) -> Any:
    """ρ moved towards TARGET_ACCEPTANCE (Robbins–Monro on log ρ), kept in (0.01, 1]."""
    return (rho * torch.exp(accepted - TARGET_ACCEPTANCE)).clamp(0.01, 1.0)


def _next_beta(beta: Any, phi: Any, share: float) -> Any:
    """Per row, the β' in (β, 1] at which reweighting by exp(−(β' − β)Φ) leaves an effective
    sample size of `share` of the particles (1 where even β' = 1 leaves more); bisection.
    beta (rows,), phi (rows, particles)."""

    def ess(b: Any) -> Any:
        log_w = -(b - beta)[:, None] * phi
        w = torch.softmax(log_w, dim=1)
        return 1.0 / (w**2).sum(1) / phi.shape[1]

    low, high = beta.clone(), torch.ones_like(beta)
    done = ess(high) >= share
    for _ in range(50):
        middle = (low + high) / 2
        enough = ess(middle) >= share
        low = torch.where(enough, middle, low)
        high = torch.where(enough, high, middle)
    return torch.where(done, torch.ones_like(beta), low)


def tempered_smc(
    noise: Noise,
    potential: Potential,
    shape: tuple[int, ...],
    steps: int = 30,
    particles: int = 64,
    moves: int = 5,
    ess_share: float = 0.5,
    max_stages: int = 200,
    clip: tuple[float, float] | None = None,
    generator: Any = None,
    dtype: Any = torch.float32,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int], None] | None = None,
) -> Samples:
    """`particles` weighted posterior draws for each of shape[0] rows (grid shape[1:]) by
    SMC over likelihood temperatures in the latent space (module docstring).

    steps: reverse steps of the decoder G; moves: pCN moves per particle after each
    resampling; ess_share: the effective sample size each reweighting keeps (share of the
    particles); max_stages: a bound on the temperatures (ValueError past it). Samples.ess
    holds the smallest effective sample size over rows after each reweighting (before
    resampling) — at ess_share · particles by construction until β reaches 1.
    """
    rows, grid = shape[0], tuple(shape[1:])
    n = rows * particles
    z = torch.randn((n, *grid), generator=generator, dtype=dtype, device=device)
    chains = _evaluate(noise, potential, z, steps, clip)
    beta = torch.zeros(rows, dtype=torch.float64, device=device)
    rho = torch.full((rows,), 0.5, dtype=torch.float64, device=device)
    ess_trace: list[float] = []
    stage = 0
    while bool((beta < 1).any()):
        stage += 1
        if stage > max_stages:
            raise ValueError(f"tempered SMC did not reach β = 1 in {max_stages} stages")
        phi = chains.phi.view(rows, particles)
        following = _next_beta(beta, phi, ess_share)
        log_weight = torch.log_softmax(-(following - beta)[:, None] * phi, dim=1)
        ess_trace.append(float((1.0 / log_weight.exp().pow(2).sum(1)).min()))
        beta = following
        index = _systematic(log_weight, generator)
        flat = (index + particles * torch.arange(rows, device=device)[:, None]).ravel()
        chains = chains.take(flat)  # resampled: equal weights from here
        betas = beta.repeat_interleave(particles)
        for _ in range(moves):
            chains, accept = _pcn(
                noise,
                potential,
                chains,
                betas,
                rho.repeat_interleave(particles),
                steps,
                clip,
                generator,
            )
            rho = _adapted(rho, accept.double().view(rows, particles).mean(1))
        if on_step is not None:
            on_step(stage, stage + int((beta < 1).sum() > 0))
    return Samples(
        chains.x0.reshape(rows, particles, *grid),
        torch.full((rows, particles), 1.0 / particles, dtype=dtype, device=device),
        torch.tensor(ess_trace),
    )


@dataclass
class ExchangeSamples(Samples):
    """Samples of the β = 1 chain (equal weights) and swap_acceptance: (K − 1,) the share of
    accepted swaps between temperatures k and k + 1, over rows and sweeps."""

    swap_acceptance: Any = None
    betas: Any = None


def ladder(temperatures: int, coldest_share: float = 1e-3) -> list[float]:
    """β₁ = 1 down to `coldest_share`, geometric: the likelihood's weight in each chain."""
    if temperatures < 1:
        raise ValueError(f"need at least one temperature, got {temperatures}")
    if temperatures == 1:
        return [1.0]
    return [coldest_share ** (k / (temperatures - 1)) for k in range(temperatures)]


def replica_exchange(
    noise: Noise,
    potential: Potential,
    shape: tuple[int, ...],
    steps: int = 30,
    draws: int = 64,
    temperatures: int = 8,
    burn_in: int = 100,
    thin: int = 2,
    coldest_share: float = 1e-3,
    clip: tuple[float, float] | None = None,
    generator: Any = None,
    dtype: Any = torch.float32,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int], None] | None = None,
) -> ExchangeSamples:
    """`draws` posterior draws for each of shape[0] rows (grid shape[1:]) by replica
    exchange in the latent space (module docstring).

    temperatures: chains per row on `ladder(temperatures, coldest_share)`; every sweep moves
    each chain by one pCN step (ρ adapted per temperature during burn_in only, then fixed,
    so the draws come from a fixed kernel) and proposes swaps between adjacent pairs
    (even pairs on even sweeps, odd on odd); burn_in sweeps are dropped, then every
    `thin`-th sweep's β = 1 state is a draw. Samples.ess holds the smallest effective
    sample size over rows of the draws' potentials (`chain_ess`).
    """
    rows, grid = shape[0], tuple(shape[1:])
    betas = torch.tensor(ladder(temperatures, coldest_share), dtype=torch.float64, device=device)
    n = rows * temperatures  # chain r·K + k: row r at temperature k
    z = torch.randn((n, *grid), generator=generator, dtype=dtype, device=device)
    chains = _evaluate(noise, potential, z, steps, clip)
    rho = torch.full((temperatures,), 0.5, dtype=torch.float64, device=device)
    each_beta = betas.repeat(rows)
    swaps = torch.zeros(max(temperatures - 1, 1), dtype=torch.float64)
    tries = torch.zeros_like(swaps)
    kept: list[Any] = []
    potentials: list[Any] = []
    sweeps = burn_in + draws * thin
    for sweep in range(sweeps):
        chains, accept = _pcn(
            noise, potential, chains, each_beta, rho.repeat(rows), steps, clip, generator
        )
        per_row = accept.double().view(rows, temperatures)
        if sweep < burn_in:
            rho = _adapted(rho, per_row.mean(0))
        if temperatures > 1:
            chains = _swap(chains, betas, rows, sweep % 2, swaps, tries, generator)
        if sweep >= burn_in and (sweep - burn_in) % thin == thin - 1:
            kept.append(chains.x0.view(rows, temperatures, *grid)[:, 0])
            potentials.append(chains.phi.view(rows, temperatures)[:, 0])
        if on_step is not None:
            on_step(sweep + 1, sweeps)
    x0 = torch.stack(kept, dim=1)
    weights = torch.full((rows, draws), 1.0 / draws, dtype=dtype, device=device)
    return ExchangeSamples(
        x0,
        weights,
        torch.tensor([float(chain_ess(torch.stack(potentials, 1)).min())]),
        swap_acceptance=(swaps / tries.clamp_min(1)).numpy(),
        betas=betas.cpu().numpy(),
    )


def chain_ess(series: Any) -> Any:
    """Effective sample size of each row of series (rows, draws) of a Markov chain:
    draws / (2 Σ_m Γ_m − 1), Γ_m = ρ_2m + ρ_2m+1 the autocorrelations summed in pairs
    while positive (Geyer's initial positive sequence, 1992), at most `draws`."""
    x = series.double() - series.double().mean(1, keepdim=True)
    draws = x.shape[1]
    spectrum = torch.fft.rfft(x, n=2 * draws)
    auto = torch.fft.irfft(spectrum * spectrum.conj(), n=2 * draws)[:, :draws]
    rho = (auto / auto[:, :1].clamp_min(1e-300)).tolist()
    ess = []
    for row in rho:
        total = 0.0
        for m in range(draws // 2):
            pair = row[2 * m] + row[2 * m + 1]
            if pair <= 0:
                break
            total += pair
        ess.append(draws / max(2 * total - 1, 1.0))  # never above the draws
    return torch.tensor(ess, dtype=torch.float64)


def _swap(
    chains: _Chains,
    betas: Any,
    rows: int,
    parity: int,
    swaps: Any,
    tries: Any,
    generator: Any,
) -> _Chains:
    """Propose swapping the states of temperatures k and k + 1 for k ≡ parity (mod 2), in
    every row; accepted with min(1, exp((β_k − β_{k+1})(Φ_k − Φ_{k+1}))). Counts into
    swaps and tries (per pair)."""
    temperatures = len(betas)
    order = torch.arange(rows * temperatures, device=betas.device).view(rows, temperatures)
    phi = chains.phi.view(rows, temperatures)
    for k in range(parity, temperatures - 1, 2):
        log_ratio = (betas[k] - betas[k + 1]) * (phi[:, k] - phi[:, k + 1])
        uniform = torch.rand(rows, generator=generator, dtype=torch.float64, device=betas.device)
        accept = torch.log(uniform) < log_ratio
        swaps[k] += float(accept.double().sum())
        tries[k] += rows
        left, right = order[:, k].clone(), order[:, k + 1].clone()
        order[:, k] = torch.where(accept, right, left)
        order[:, k + 1] = torch.where(accept, left, right)
    return chains.take(order.ravel())
