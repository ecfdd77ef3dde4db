"""Training-free posterior sampling with a diffusion prior, batched in torch.

Both samplers take a denoiser `noise(x_t, t) -> ε̂` (the prior) and a potential
`potential(x0) -> Φ` per row (the negative log-likelihood of the data given a clean field
x0 in the model's space), and run the reverse chain of `schedule` from t = 1 to 0 for
every row at once.

- `dps`: diffusion posterior sampling (Chung et al., ICLR 2023). Each reverse step is the
  prior's ancestral step, then a step against ∇_{x_t} ‖r(x̂₀(x_t))‖ where r are the
  standardised residuals (Φ = ½‖r‖²) and x̂₀ is Tweedie's estimate; `scale` sets its size.
  Approximate (the guidance is a heuristic), one network call and backward per step.
- `pnp`: plug-and-play diffusion restoration (DiffPIR; Zhu et al., CVPRW 2023). Each step
  takes the prior's x̂₀, moves it to the data by a proximal step, x̃₀ = argmin Φ(x) +
  λ‖x − x̂₀‖²/(2σ̄_t²) with σ̄_t² = (1 − ᾱ_t)/ᾱ_t (a few Adam iterations: Φ is not
  quadratic), and re-noises x̃₀ to the next time. The network is not differentiated; the
  data step costs only the likelihood's gradient. Approximate, as DPS, but stable where
  the residuals are large (the step is a solved problem, not a gradient of fixed size).
- `smc`: twisted sequential Monte Carlo (after Wu et al., NeurIPS 2023). `particles` per
  row follow the same reverse chain, proposed by plug-and-play's proximal step and
  weighted by the twist p̃_t(y | x_t) = exp(−λ_t Φ(x̂₀(x_t))) and the proposal's density
  ratio against the prior's step, so that the particles target prior × likelihood exactly
  as their number grows; resampled (systematic) when the effective sample size falls
  below half.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import torch

from .schedule import alpha_bar, reverse_step, times, tweedie

Noise = Callable[[Any, Any], Any]
Potential = Callable[[Any], Any]


@dataclass
class Samples:
    """x0: (rows, particles, ny, nx) samples in the model's space; weights: (rows,
    particles), summing to 1 per row; ess: (steps,) the smallest effective sample size
    over rows after each step (SMC; the particle count for DPS)."""

    x0: Any
    weights: Any
    ess: Any


def _denoised(noise: Noise, x_t: Any, t: float, clip: tuple[float, float] | None) -> Any:
    """Tweedie's x̂₀ for x_t (n, ny, nx) at time t, clipped to `clip` (the data's range)."""
    time = torch.full((len(x_t),), t, dtype=x_t.dtype, device=x_t.device)
    x0 = tweedie(x_t, time, noise(x_t, time))
    return x0 if clip is None else x0.clamp(*clip)


def _estimate(
    noise: Noise, potential: Potential, x_t: Any, t: float, clip: tuple[float, float] | None
) -> tuple[Any, Any, Any]:
    """(x̂₀, Φ(x̂₀), ∇_{x_t} Φ) for x_t (n, ny, nx)."""
    x_t = x_t.detach().requires_grad_(True)
    x0 = _denoised(noise, x_t, t, clip)
    phi = potential(x0)
    (gradient,) = torch.autograd.grad(phi.sum(), x_t)
    return x0.detach(), phi.detach(), gradient


def dps(
    noise: Noise,
    potential: Potential,
    shape: tuple[int, ...],
    steps: int = 100,
    scale: float = 1.0,
    samples: int = 1,
    clip: tuple[float, float] | None = None,
    generator: Any = None,
    dtype: Any = torch.float32,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int], None] | None = None,
) -> Samples:
    """`samples` posterior draws for each of shape[0] rows (grid shape[1:]).

    scale: the guidance step ζ, in units of the model space per unit of ‖r‖; clip: bounds
    on x̂₀ (the data's range) or None.
    """
    rows, grid = shape[0], tuple(shape[1:])
    n = rows * samples
    x = torch.randn((n, *grid), generator=generator, dtype=dtype, device=device)
    schedule = times(steps)
    for i, (t, s) in enumerate(pairwise(schedule)):
        x0, phi, gradient = _estimate(noise, potential, x, t, clip)
        step = reverse_step(t, s)
        x_s = step.mean(x0, x)
        if step.sigma > 0:
            x_s = x_s + step.sigma * torch.randn(
                x.shape, generator=generator, dtype=dtype, device=device
            )
        norm = (2 * phi).clamp_min(1e-12).sqrt().view(-1, *[1] * len(grid))
        x = (x_s - scale * gradient / norm).detach()  # ∇‖r‖ = ∇Φ / ‖r‖
        if on_step is not None:
            on_step(i + 1, steps)
    if clip is not None:  # the last guidance step may leave the data's range
        x = x.clamp(*clip)
    return _unweighted(x, rows, samples, steps)


def pnp(
    noise: Noise,
    potential: Potential,
    shape: tuple[int, ...],
    steps: int = 100,
    strength: float = 1.0,
    zeta: float = 1.0,
    samples: int = 1,
    iterations: int = 20,
    rate: float = 0.05,
    clip: tuple[float, float] | None = None,
    generator: Any = None,
    dtype: Any = torch.float32,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int], None] | None = None,
    refresh: Callable[[Any], None] | None = None,
) -> Samples:
    """`samples` posterior draws for each of shape[0] rows (grid shape[1:]) by DiffPIR.

    strength: λ, the weight of the prior's x̂₀ against the data in the proximal step (in
    units of the data's standardised residuals: λ = 1 weighs x̂₀ by its own noise level);
    zeta: ζ ∈ [0, 1], the share of fresh noise when re-noising (1: all fresh, 0: the
    deterministic DDIM direction); iterations, rate: the Adam iterations and step (model
    units) of each proximal solve; clip: bounds on x̂₀ and x̃₀ (the data's range) or None;
    refresh(x̃₀), when given, runs after every proximal step with its (rows·samples, ...)
    solution, rows slowest: it may redraw other unknowns of `potential` given the fields
    (the latent offsets of `baseline_offset`), which the next step's data then read.
    """
    if not 0 <= zeta <= 1:
        raise ValueError(f"zeta must be in [0, 1], got {zeta}")
    rows, grid = shape[0], tuple(shape[1:])
    n = rows * samples
    x = torch.randn((n, *grid), generator=generator, dtype=dtype, device=device)
    schedule = times(steps)
    for i, (t, s) in enumerate(pairwise(schedule)):
        a_t = float(alpha_bar(torch.tensor(t, dtype=torch.float64)))
        a_s = float(alpha_bar(torch.tensor(s, dtype=torch.float64)))
        with torch.no_grad():
            x0 = _denoised(noise, x, t, clip)
        x0 = _proximal(potential, x0, strength * a_t / (1 - a_t), iterations, rate, clip)
        if refresh is not None:
            refresh(x0)
        if s > 0:
            direction = (x - math.sqrt(a_t) * x0) / math.sqrt(1 - a_t)  # the implied ε
            fresh = torch.randn(x.shape, generator=generator, dtype=dtype, device=device)
            x = math.sqrt(a_s) * x0 + math.sqrt(1 - a_s) * (
                math.sqrt(1 - zeta) * direction + math.sqrt(zeta) * fresh
            )
        else:
            x = x0
        if on_step is not None:
            on_step(i + 1, steps)
    return _unweighted(x, rows, samples, steps)


def _unweighted(x: Any, rows: int, samples: int, steps: int) -> Samples:
    """Samples of equal weight (DPS, PnP): x (rows·samples, ...) regrouped per row, the
    effective sample size the draw count at every step."""
    weights = torch.full((rows, samples), 1.0 / samples, dtype=x.dtype, device=x.device)
    ess = torch.full((steps,), float(samples), dtype=x.dtype)
    return Samples(x.reshape(rows, samples, *x.shape[1:]), weights, ess)


def _proximal(
    potential: Potential,
    anchor: Any,
    weight: float,
    iterations: int,
    rate: float,
    clip: tuple[float, float] | None,
) -> Any:
    """argmin_x Φ(x) + weight·‖x − anchor‖²/2 per row, from x = anchor, by Adam (whose
    per-element steps keep rows independent although their objectives are summed)."""
    x = anchor.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([x], lr=rate)
    for _ in range(iterations):
        optimizer.zero_grad()
        bounded = x if clip is None else x.clamp(*clip)
        objective = potential(bounded).sum() + 0.5 * weight * ((x - anchor) ** 2).sum()
        objective.backward()
        optimizer.step()
    x = x.detach()
    return x if clip is None else x.clamp(*clip)


def smc(
    noise: Noise,
    potential: Potential,
    shape: tuple[int, ...],
    steps: int = 100,
    particles: int = 16,
    strength: float = 1.0,
    iterations: int = 20,
    rate: float = 0.05,
    clip: tuple[float, float] | None = None,
    generator: Any = None,
    dtype: Any = torch.float32,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int], None] | None = None,
    temper: Callable[[float], float] = lambda t: float(alpha_bar(torch.tensor(t))),
) -> Samples:
    """Twisted sequential Monte Carlo: `particles` weighted draws for each of shape[0] rows.

    The twist is p̃_t(y | x_t) = exp(−λ_t Φ(x̂₀(x_t))), λ_t = temper(t). The proposal from t
    to s is the prior's reverse step with x̂₀ replaced by plug-and-play's data-consistent
    x̃₀ (`pnp`'s proximal step; strength, iterations, rate as there): N(c₀x̃₀ + c_t x_t, σ²)
    instead of the prior's N(c₀x̂₀ + c_t x_t, σ²). The incremental log-weight is
    log p_θ(x_s | x_t) − log q(x_s | x_t) + log p̃_s(x_s) − log p̃_t(x_t), which makes the
    particles target prior × likelihood exactly as their number grows, whatever the
    proposal. The last step (σ = 0) is the prior's x̂₀, unguided, so its twist is the
    likelihood itself. Particles are resampled (systematic) when the effective sample size
    falls below half.

    Twisted diffusion sampling (Wu et al., NeurIPS 2023) proposes with a gradient step
    σ²∇_{x_t} log p̃_t instead; with hundreds of links at 0.3 dB that gradient is ~10⁶ per
    cell at t = 1 and throws the chain out of the data's range (every map at `clip`'s top).
    The proximal step is a solved problem whose size the prior bounds, and it needs no
    gradient through the network.
    """
    rows, grid = shape[0], tuple(shape[1:])
    n = rows * particles
    axes = tuple(range(1, len(grid) + 1))
    x = torch.randn((n, *grid), generator=generator, dtype=dtype, device=device)
    schedule = times(steps)

    def twisted(x_t: Any, t: float) -> tuple[Any, Any]:
        """(x̂₀, log p̃_t) for x_t."""
        with torch.no_grad():
            x0 = _denoised(noise, x_t, t, clip)
            return x0, -temper(t) * potential(x0).double()

    x0, log_twist = twisted(x, schedule[0])
    log_weight = log_twist.view(rows, particles)  # the first target: p(x_T) p̃_T(y | x_T)
    log_weight = log_weight - log_weight.logsumexp(1, keepdim=True)
    ess_trace = []
    for i, (t, s) in enumerate(pairwise(schedule)):
        step = reverse_step(t, s)
        mean = step.mean(x0, x)
        if step.sigma > 0:
            a_t = float(alpha_bar(torch.tensor(t, dtype=torch.float64)))
            weight = strength * a_t / (1 - a_t)
            # Adam moves each cell by about `rate` whatever the gradient: kept within x̂₀'s
            # own uncertainty, √(1/weight), so that late, narrow steps are not overshot
            step_rate = min(rate, math.sqrt(1 / weight))
            guided = _proximal(potential, x0, weight, iterations, step_rate, clip)
            proposal = step.mean(guided, x)
            x_s = proposal + step.sigma * torch.randn(
                x.shape, generator=generator, dtype=dtype, device=device
            )
            # log N(x_s; mean, σ²) − log N(x_s; proposal, σ²)
            correction = ((x_s - proposal).double() ** 2 - (x_s - mean).double() ** 2).sum(axes) / (
                2 * step.sigma**2
            )
        else:
            x_s, correction = mean, torch.zeros(n, dtype=torch.float64, device=device)
        previous = log_twist
        if s > 0:
            x0, log_twist = twisted(x_s, s)
        else:
            with torch.no_grad():
                log_twist = -potential(x_s).double()
        log_weight += (correction + log_twist - previous).view(rows, particles)
        x = x_s
        log_weight = log_weight - log_weight.logsumexp(1, keepdim=True)
        ess = 1.0 / log_weight.exp().pow(2).sum(1)
        ess_trace.append(float(ess.min()))
        if s > 0:
            low = ess < particles / 2
            if low.any():
                index = _systematic(log_weight, generator)
                index = torch.where(
                    low[:, None], index, torch.arange(particles, device=device)[None]
                )
                flat = (index + particles * torch.arange(rows, device=device)[:, None]).ravel()
                x, x0, log_twist = x[flat], x0[flat], log_twist[flat]
                log_weight = torch.where(low[:, None], -math.log(particles), log_weight)
        if on_step is not None:
            on_step(i + 1, steps)
    return Samples(
        x.reshape(rows, particles, *grid), log_weight.exp().to(dtype), torch.tensor(ess_trace)
    )


def _systematic(log_weight: Any, generator: Any) -> Any:
    """Systematic resampling: (rows, particles) indices drawn from each row's weights."""
    rows, particles = log_weight.shape
    cumulative = log_weight.exp().cumsum(1)
    cumulative[:, -1] = 1.0
    u = torch.rand((rows, 1), generator=generator, dtype=torch.float64, device=log_weight.device)
    offsets = torch.arange(particles, dtype=torch.float64, device=log_weight.device)
    points = (u + offsets) / particles
    return torch.searchsorted(cumulative, points).clamp_max(particles - 1)
