"""The diffusion posterior samplers' calibration on a Gaussian toy, against the exact answer.

Issue #46's toy: a Gaussian prior on a 2 × 5 grid (squared-exponential, length 1.5 cells,
its exact denoiser in closed form), one point observation and one path mean at σ = 0.1.
Each of --problems problems draws its own truth from the prior and its data from the
likelihood; every sampler gives --draws draws per problem (all problems in one batch), and
the Kalman posterior is the anchor, computed in the same run. Per sampler: the mean's
error and the spread, both in posterior standard deviations (averaged over cells and
problems), the share of 90% intervals holding the truth, and the CRPS of the truth
against the draws beside the exact posterior's CRPS (ratio: 1 is the best any sampler can
do). Nothing here is tuned: every sampler runs at its library defaults except the steps.

    python benchmarks/cml_sampler_calibration.py --problems 200 --draws 64
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from publish import published
from scipy.stats import norm
from timing import arguments

from substrates.models.cml.diffusion.latent import replica_exchange, tempered_smc
from substrates.models.cml.diffusion.posterior import Samples, dps, pnp, smc
from substrates.models.cml.diffusion.schedule import alpha_bar

GRID = (2, 5)
SIGMA = 0.1


def prior_covariance() -> np.ndarray:
    y, x = np.meshgrid(np.arange(GRID[0]), np.arange(GRID[1]), indexing="ij")
    points = np.stack([y.ravel(), x.ravel()], 1)
    d2 = ((points[:, None] - points[None]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * 1.5**2)) + 0.05 * np.eye(len(points))


def exact_noise(covariance: np.ndarray) -> Callable[[Any, Any], Any]:
    """ε̂(x_t, t) of the exact denoiser: x̂₀ = √ᾱ Σ (ᾱΣ + (1 − ᾱ)I)⁻¹ x_t."""
    sigma, eye = torch.as_tensor(covariance), torch.eye(len(covariance), dtype=torch.float64)

    def noise(x_t: Any, t: Any) -> Any:
        a = alpha_bar(t[0]).double()
        gain = a.sqrt() * sigma @ torch.linalg.inv(a * sigma + (1 - a) * eye)
        flat = x_t.reshape(len(x_t), -1)
        return ((flat - a.sqrt() * flat @ gain.T) / (1 - a).sqrt()).reshape(x_t.shape)

    return noise


def problems(count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(forward (2, 10), truths (count, 10), data (count, 2))."""
    forward = np.zeros((2, 10))
    forward[0, 3] = 1.0
    forward[1, :5] = 0.2
    rng = np.random.default_rng(seed)
    truths = rng.multivariate_normal(np.zeros(10), prior_covariance(), size=count)
    return forward, truths, truths @ forward.T + SIGMA * rng.normal(size=(count, 2))


def potential_of(forward: np.ndarray, data: np.ndarray) -> Callable[[Any], Any]:
    """Φ per row of a batch of rows·k fields, row r's fields against data[r]."""
    h, y = torch.as_tensor(forward), torch.as_tensor(data)

    def potential(x0: Any) -> Any:
        per = len(x0) // len(y)
        residual = (x0.reshape(len(x0), -1) @ h.T - y.repeat_interleave(per, 0)) / SIGMA
        return 0.5 * (residual**2).sum(1)

    return potential


def crps(draws: np.ndarray, weights: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """CRPS per problem and cell of weighted draws (problems, draws, cells) at truth:
    E|X − y| − ½ E|X − X′|."""
    w = weights[..., None]
    first = (w * np.abs(draws - truth[:, None])).sum(1)
    pairs = np.abs(draws[:, :, None] - draws[:, None, :])
    second = (w[:, :, None] * w[:, None, :] * pairs).sum((1, 2))
    return first - 0.5 * second


def gaussian_crps(mean: np.ndarray, sd: np.ndarray, truth: np.ndarray) -> np.ndarray:
    z = (truth - mean) / sd
    return sd * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / math.sqrt(math.pi))


def covered(draws: np.ndarray, weights: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Whether the weighted 5–95% interval of each problem and cell holds the truth."""
    order = np.argsort(draws, axis=1)
    sorted_draws = np.take_along_axis(draws, order, 1)
    cumulative = np.take_along_axis(np.broadcast_to(weights[..., None], draws.shape), order, 1)
    cumulative = cumulative.cumsum(1)
    low = np.take_along_axis(sorted_draws, (cumulative < 0.05).sum(1, keepdims=True), 1)[:, 0]
    top = np.minimum((cumulative < 0.95).sum(1, keepdims=True), draws.shape[1] - 1)
    high = np.take_along_axis(sorted_draws, top, 1)[:, 0]
    return (low <= truth) & (truth <= high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=200)
    parser.add_argument("--draws", type=int, default=64, help="draws or particles per problem")
    parser.add_argument("--steps", type=int, default=50, help="reverse steps of every sampler")
    parser.add_argument("--seed", type=int, default=46)
    args = arguments(parser, problems=4, draws=8, steps=5)
    covariance = prior_covariance()
    forward, truths, data = problems(args.problems, args.seed)
    exact_cov = np.linalg.inv(np.linalg.inv(covariance) + forward.T @ forward / SIGMA**2)
    exact_mean = data @ (exact_cov @ forward.T / SIGMA**2).T
    exact_sd = np.sqrt(np.diag(exact_cov))
    noise, potential = exact_noise(covariance), potential_of(forward, data)
    shape = (args.problems, *GRID)
    common = {"steps": args.steps, "dtype": torch.float64}
    samplers: dict[str, Callable[[Any], Samples]] = {
        "DPS (scale 0.05)": lambda g: dps(
            noise, potential, shape, scale=0.05, samples=args.draws, generator=g, **common
        ),
        "plug-and-play (DiffPIR)": lambda g: pnp(
            noise, potential, shape, samples=args.draws, generator=g, **common
        ),
        "twisted SMC": lambda g: smc(
            noise, potential, shape, particles=args.draws, generator=g, **common
        ),
        "tempered SMC (latent)": lambda g: tempered_smc(
            noise, potential, shape, particles=args.draws, generator=g, **common
        ),
        "replica exchange (latent)": lambda g: replica_exchange(
            noise, potential, shape, draws=args.draws, generator=g, **common
        ),
    }
    print(
        f"{args.problems} problems, {args.draws} draws each, {args.steps} reverse steps; "
        "errors and spreads in posterior SDs, averaged over cells and problems\n"
    )
    print(
        "| sampler | mean error / SD | spread / exact | 90% interval coverage "
        "| CRPS / exact CRPS | wall (s) | extra |"
    )
    print("|---|---|---|---|---|---|---|")
    exact_crps = gaussian_crps(exact_mean, exact_sd, truths).mean()
    for name, run in samplers.items():
        start = time.perf_counter()
        out = run(torch.Generator().manual_seed(args.seed))
        wall = time.perf_counter() - start
        draws = out.x0.reshape(args.problems, -1, 10).double().numpy()
        weights = out.weights.double().numpy()
        mean = (weights[..., None] * draws).sum(1)
        sd = np.sqrt((weights[..., None] * (draws - mean[:, None]) ** 2).sum(1))
        swaps = getattr(out, "swap_acceptance", None)
        extra = (
            "swap acceptance " + ", ".join(f"{s:.2f}" for s in swaps)
            if swaps is not None
            else f"median ESS {float(out.ess.median()):.0f}"
        )
        print(
            f"| {name} | {np.mean(np.abs(mean - exact_mean) / exact_sd):.2f} "
            f"| {np.mean(sd / exact_sd):.2f} "
            f"| {100 * covered(draws, weights, truths).mean():.1f}% "
            f"| {crps(draws, weights, truths).mean() / exact_crps:.3f} | {wall:.1f} | {extra} |"
        )
    print(
        f"| Kalman (exact; the anchor) | 0 | 1 | "
        f"{100 * (np.abs(truths - exact_mean) <= norm.ppf(0.95) * exact_sd).mean():.1f}% "
        "| 1 | — | — |"
    )


if __name__ == "__main__":
    with published("cml_sampler_calibration"):
        main()
