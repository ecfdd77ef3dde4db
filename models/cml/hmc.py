"""Hamiltonian Monte Carlo for posteriors with a standard-normal prior, batched in torch.

Target exp(−Φ(v)) N(v; 0, I) for every row of a batch at once (rows are independent
chains, or independent given what `refresh` draws). The Gaussian part of the Hamiltonian
is integrated exactly (a rotation of (v, p)) and Φ by half kicks between rotations (Beskos
et al. 2011, "Hybrid Monte Carlo on Hilbert spaces"), so with Φ = 0 every proposal is
accepted whatever the dimension; step sizes are adapted per row during warm-up towards
the target acceptance, with ±20 % jitter.

`refresh` makes it the HMC half of a Metropolis-within-Gibbs sampler: after every
transition it draws the variables Φ conditions on (e.g. each link's baseline offset) from
their conditional given the new state, and Φ and its gradient are recomputed; each half
leaves the joint posterior invariant, so the pair does too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class HMCResult:
    """final: the last state (batch, ...); step: adapted step size per row; acceptance:
    mean Metropolis acceptance probability per row after warm-up."""

    final: Any
    step: Any
    acceptance: Any


def _potential_and_gradient(potential: Callable[[Any], Any], v: Any) -> tuple[Any, Any]:
    import torch

    v = v.detach().requires_grad_(True)
    phi = potential(v)
    (gradient,) = torch.autograd.grad(phi.sum(), v)
    return phi.detach(), gradient


def _half_square(v: Any, dims: tuple[int, ...]) -> Any:
    """½|v|² per row, accumulated in float64 whatever v's precision."""
    return 0.5 * (v.double() ** 2).sum(dims)


def hmc(
    potential: Callable[[Any], Any],
    initial: Any,
    iterations: int,
    warmup: int,
    leapfrog: int = 10,
    step: float = 0.05,
    target: float = 0.7,
    generator: Any = None,
    on_sample: Callable[[Any], None] | None = None,
    on_iteration: Callable[[int], None] | None = None,
    refresh: Callable[[Any], None] | None = None,
) -> HMCResult:
    """Run `iterations` HMC transitions from `initial`; `potential(v)` returns Φ per row.

    on_sample(v) sees every state after warm-up (after `refresh`); on_iteration(i) reports
    progress; refresh(v), after each transition, redraws what `potential` conditions on
    (the Gibbs half; the rows need only be independent given what it draws).
    """
    import torch

    if not 0 <= warmup < iterations:
        raise ValueError(f"need 0 <= warmup < iterations, got {warmup} and {iterations}")
    batch = initial.shape[0]
    dims = tuple(range(1, initial.dim()))
    column = (-1, *[1] * len(dims))

    def normal() -> Any:
        return torch.randn(
            initial.shape, generator=generator, dtype=initial.dtype, device=initial.device
        )

    def uniform(size: int) -> Any:
        return torch.rand(size, generator=generator, dtype=torch.float64, device=initial.device)

    v = initial.detach()
    phi, gradient = _potential_and_gradient(potential, v)
    phi = phi.double()
    log_step = torch.full((batch,), math.log(step), dtype=torch.float64, device=v.device)
    accepted = torch.zeros(batch, dtype=torch.float64, device=v.device)
    for i in range(iterations):
        h = (log_step.exp() * (0.8 + 0.4 * uniform(batch))).to(v.dtype).view(column)
        cos, sin = torch.cos(h), torch.sin(h)
        p = normal()
        energy = phi + _half_square(v, dims) + _half_square(p, dims)
        x, g = v, gradient
        for _ in range(leapfrog):
            p = p - 0.5 * h * g
            x, p = x * cos + p * sin, p * cos - x * sin
            phi_x, g = _potential_and_gradient(potential, x)
            p = p - 0.5 * h * g
        log_ratio = energy - (phi_x.double() + _half_square(x, dims) + _half_square(p, dims))
        log_ratio = torch.nan_to_num(log_ratio, nan=-math.inf)
        accept = uniform(batch).log() < log_ratio
        v = torch.where(accept.view(column), x, v)
        phi = torch.where(accept, phi_x.double(), phi)
        gradient = torch.where(accept.view(column), g, gradient)
        if refresh is not None:
            refresh(v)
            phi, gradient = _potential_and_gradient(potential, v)
            phi = phi.double()
        probability = log_ratio.clamp(max=0).exp()
        if i < warmup:
            log_step = (log_step + (probability - target) / math.sqrt(i + 1)).clamp(max=0.0)
        else:
            accepted += probability
            if on_sample is not None:
                on_sample(v)
        if on_iteration is not None:
            on_iteration(i)
    return HMCResult(v, log_step.exp(), accepted / (iterations - warmup))
