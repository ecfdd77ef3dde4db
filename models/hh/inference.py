"""Neural posterior estimation (sbi's NPE) of a cell's parameters from summary features:
parameter sets drawn from the model's uniform prior are simulated (spike templates with
the noise an electrical image of `spikes` spikes keeps, and activation thresholds), a
normalising flow learns p(θ | features), and the posterior at the observed features gives
samples, their mean and SD, and the most probable sample."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...backends.mea.base import CellModel, Parameter
from .summary import align, features


@dataclass(frozen=True)
class Posterior:
    """samples (n, parameters) and their log densities (up to one constant per posterior:
    they rank its samples); best: the most probable sample."""

    samples: np.ndarray
    log_density: np.ndarray

    @property
    def best(self) -> np.ndarray:
        return self.samples[int(np.argmax(self.log_density))]

    def most_probable(self, count: int) -> np.ndarray:
        """(count, parameters): the samples of highest density, most probable first."""
        return self.samples[np.argsort(-self.log_density)[:count]]

    def spread(self, parameters: tuple[Parameter, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Each parameter's posterior mean and SD; circular ones for a periodic parameter
        (an angle near ±π averages to ±π, not 0)."""
        mean, sd = self.samples.mean(axis=0), self.samples.std(axis=0)
        for k, p in enumerate(parameters):
            if p.periodic:
                span = p.high - p.low
                turn = (self.samples[:, k] - p.low) / span * 2 * np.pi
                s, c = np.sin(turn).mean(), np.cos(turn).mean()
                mean[k] = p.inside(p.low + np.arctan2(s, c) / (2 * np.pi) * span)
                sd[k] = np.sqrt(-2 * np.log(max(np.hypot(s, c), 1e-12))) / (2 * np.pi) * span
        return mean, sd


@dataclass(frozen=True)
class Observation:
    """What the simulations must reproduce: the aligned electrical image's reference channel
    and trough sample, the fitting electrodes and pulse shape, the per-channel noise SD of
    the image (µV), and the observed features."""

    channel: int
    at: int
    electrodes: list[int]
    shape: str
    image_noise_uv: np.ndarray
    x: np.ndarray


def simulate(
    model: CellModel, theta: np.ndarray, observation: Observation, rng: np.random.Generator
) -> np.ndarray:
    """Features of each parameter set (rows of theta), with image noise."""
    templates = align(model.templates(theta), observation.channel, observation.at)
    noise = rng.standard_normal(templates.shape) * observation.image_noise_uv[:, None]
    templates = templates + noise
    thresholds = model.thresholds(theta, np.array(observation.electrodes), observation.shape)
    return features(templates, thresholds, model.sampling_hz, observation.at)


def npe(
    model: CellModel,
    observation: Observation,
    simulations: int = 1000,
    seed: int = 0,
    samples: int = 1000,
    progress: Callable[[int, int], None] | None = None,
) -> Posterior:
    """Trains NPE on `simulations` prior draws (in chunks, reporting progress) and samples
    its posterior at the observed features."""
    rng = np.random.default_rng(seed)
    low = np.array([p.low for p in model.parameters])
    high = np.array([p.high for p in model.parameters])
    theta = rng.uniform(low, high, (simulations, len(low)))
    chunk = max(1, simulations // 10)
    xs = []
    if progress:  # the bar from the start: a chunk takes seconds to minutes
        progress(0, simulations)
    for start in range(0, simulations, chunk):
        xs.append(simulate(model, theta[start : start + chunk], observation, rng))
        if progress:
            progress(min(simulations, start + chunk), simulations)
    x = np.concatenate(xs)
    return trained(theta, x, low, high, observation.x, seed, samples)


def trained(
    theta: np.ndarray,
    x: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    x_o: np.ndarray,
    seed: int = 0,
    samples: int = 1000,
) -> Posterior:
    """NPE trained on simulated pairs (theta (n, parameters), x (n, features); rows with
    a non-finite feature left out) under the uniform prior [low, high], sampled at the
    observed features `x_o`."""
    import torch
    from sbi.inference import NPE
    from sbi.utils import BoxUniform

    torch.manual_seed(seed)
    keep = np.isfinite(x).all(axis=1)
    prior = BoxUniform(
        torch.as_tensor(low, dtype=torch.float32), torch.as_tensor(high, dtype=torch.float32)
    )
    inference = NPE(prior=prior, show_progress_bars=False, tracker=_Metrics())
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        # Faint channels' latencies are heavy-tailed; sbi's z-scoring warns, and training
        # prints its convergence line.
        warnings.filterwarnings("ignore", message="Data has extreme outliers")
        inference.append_simulations(
            torch.as_tensor(theta[keep], dtype=torch.float32),
            torch.as_tensor(x[keep], dtype=torch.float32),
        )
        estimator = inference.train(show_train_summary=False)
    posterior = inference.build_posterior(estimator)
    observed = torch.as_tensor(x_o, dtype=torch.float32)
    drawn = posterior.sample((samples,), x=observed, show_progress_bars=False)
    # Unnormalised: the flow's mass outside the prior (leakage) shifts every sample's log
    # density by one constant, so no ranking changes; normalising it draws until 10,000
    # samples fall inside the prior, minutes where the flow put 99.4% of its mass outside
    # (a unit of the 110-cell amortised benchmark).
    density = posterior.log_prob(drawn, x=observed, norm_posterior=False)
    return Posterior(drawn.numpy().astype(np.float64), density.numpy().astype(np.float64))


@dataclass
class _Metrics:
    """sbi's training tracker, kept in memory (sbi's default writes TensorBoard logs into
    the working directory)."""

    metrics: dict[str, list[float]] = field(default_factory=dict)
    log_dir: str | None = None

    def log_metric(self, name: str, value: float, step: int | None = None) -> None:
        self.metrics.setdefault(name, []).append(float(value))

    def log_metrics(self, metrics: dict[str, float], step: int | None = None) -> None:
        for name, value in metrics.items():
            self.log_metric(name, value, step)

    def log_params(self, params: dict[str, Any]) -> None:
        """Nothing to keep: the run's provenance records its parameters."""

    def add_figure(self, name: str, figure: Any, step: int | None = None) -> None:
        """Figures are not kept."""

    def flush(self) -> None:
        """Nothing is buffered."""
