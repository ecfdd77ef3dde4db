"""The cosine noise schedule (Nichol & Dhariwal 2021) in continuous time t ∈ [0, 1], and
the reverse step of denoising diffusion (Ho et al. 2020) between any two times.

Forward: x_t = √ᾱ(t)·x₀ + √(1 − ᾱ(t))·ε. Given x₀'s estimate x̂₀ (Tweedie's formula from
the network's noise estimate), the reverse step from t to s < t draws x_s from the forward
process's posterior q(x_s | x_t, x₀ = x̂₀), a Gaussian with the mean and variance below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

OFFSET = 0.008
"""s of the cosine schedule (keeps the noise at t = 0 above zero)."""
ALPHA_BAR_MIN = 1e-4
"""ᾱ at t = 1 (the cosine reaches 0 there; x̂₀ needs √ᾱ > 0)."""


def alpha_bar(t: Any) -> Any:
    """ᾱ(t) of the cosine schedule, t a tensor in [0, 1]."""
    f = torch.cos((t + OFFSET) / (1 + OFFSET) * (math.pi / 2)) ** 2
    f0 = math.cos(OFFSET / (1 + OFFSET) * (math.pi / 2)) ** 2
    return (f / f0).clamp(ALPHA_BAR_MIN, 1.0)


def noised(x0: Any, t: Any, noise: Any) -> Any:
    """x_t for rows x0 (batch, ...), times t (batch,), standard-normal noise of x0's shape."""
    a = alpha_bar(t).view(-1, *[1] * (x0.dim() - 1))
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def tweedie(x_t: Any, t: Any, noise_estimate: Any) -> Any:
    """x̂₀ = (x_t − √(1 − ᾱ)·ε̂)/√ᾱ."""
    a = alpha_bar(t).view(-1, *[1] * (x_t.dim() - 1))
    return (x_t - (1 - a).sqrt() * noise_estimate) / a.sqrt()


@dataclass(frozen=True)
class ReverseStep:
    """The Gaussian q(x_s | x_t, x₀): mean = c0·x₀ + ct·x_t, standard deviation sigma
    (scalars, one pair of times for the whole batch)."""

    c0: float
    ct: float
    sigma: float

    def mean(self, x0: Any, x_t: Any) -> Any:
        return self.c0 * x0 + self.ct * x_t


def reverse_step(t: float, s: float) -> ReverseStep:
    """The reverse step from time t to s (0 ≤ s < t ≤ 1)."""
    a_t = float(alpha_bar(torch.tensor(t, dtype=torch.float64)))
    a_s = float(alpha_bar(torch.tensor(s, dtype=torch.float64)))
    alpha = a_t / a_s  # of the step
    c0 = math.sqrt(a_s) * (1 - alpha) / (1 - a_t)
    ct = math.sqrt(alpha) * (1 - a_s) / (1 - a_t)
    return ReverseStep(c0, ct, math.sqrt((1 - alpha) * (1 - a_s) / (1 - a_t)))


def times(steps: int) -> list[float]:
    """steps + 1 times from 1 down to 0, evenly spaced."""
    if steps < 1:
        raise ValueError(f"need at least one reverse step, got {steps}")
    return [1 - i / steps for i in range(steps + 1)]
