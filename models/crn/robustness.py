"""What a reduction's validation needs beyond equal beliefs (issue: CRN validation on real
networks, item 7):

- sensitivity: how far the beliefs at rest move when every rate constant is multiplied by
  an independent factor drawn uniformly from [1 − ε, 1 + ε] (a chemical implementation never
  hits its rates exactly);
- basins: steady states reached from random initial messages (each conserved group drawn
  from a flat Dirichlet): how many distinct fixed points, and how far from the one reached
  from uniform messages;
- relaxation: the slowest rate at which the CRN approaches its steady state, −Re λ of the
  Jacobian's slowest eigenvalue off the conserved directions, as a time τ (the distance to
  rest falls as e^(−t/τ)), beside BP's sweeps;
- noise: the stochastic CRN's time-averaged beliefs at a few volumes — their bias against
  the deterministic beliefs and their spread across seeds.

Each takes the compiled CRN, the rows of its beliefs to compare (surviving variables) and
a CRN simulator; batched simulators (crn.torch) get all samples in one call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...backends.crn.base import CRNBackend
from ...errors import SubstratesError
from .napp_adams import CompiledGraph

DENSE_LIMIT = 3000
"""Largest CRN (species) whose Jacobian spectrum is computed densely for the relaxation time."""
DISTINCT = 1e-6
"""Beliefs further apart than this (max abs) count as different fixed points."""


def _beliefs(compiled: CompiledGraph, rows: Sequence[int], x: np.ndarray) -> np.ndarray:
    every = compiled.beliefs(x)
    return np.concatenate([every[r] for r in rows])


def _rest(
    simulator: Any,
    compiled: CompiledGraph,
    rows: Sequence[int],
    tolerance: float,
    initial: np.ndarray | None = None,
    rates: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Beliefs at rest for each row of `initial` or `rates` (batch, …): (array, failures)."""
    network = compiled.network
    batch = len(initial) if initial is not None else len(rates) if rates is not None else 1
    if simulator.capabilities.batched:
        states = simulator.steady_states(network, initial, rates, tolerance)
        return np.array([_beliefs(compiled, rows, x) for x in states]), 0
    out, failures = [], 0
    for k in range(batch):
        changed = replace(
            network,
            initial=network.initial if initial is None else initial[k],
            rates=network.rates if rates is None else rates[k],
        )
        try:
            out.append(
                _beliefs(compiled, rows, simulator.steady_state(changed, tolerance).concentrations)
            )
        except SubstratesError:
            failures += 1
    return np.array(out), failures


def rate_sensitivity(
    compiled: CompiledGraph,
    rows: Sequence[int],
    names: Sequence[str],
    simulator: Any,
    levels: Sequence[float],
    samples: int,
    seed: int,
    tolerance: float,
) -> list[dict[str, Any]]:
    """Per level ε and surviving variable: the mean and largest shift (max abs over its
    states) of its belief at rest under rate noise, and how many samples failed to rest."""
    rng = np.random.default_rng(seed)
    base, _ = _rest(simulator, compiled, rows, tolerance)
    sizes = [len(compiled.beliefs(compiled.network.initial)[r]) for r in rows]
    edges = np.cumsum([0, *sizes])
    out = []
    for level in levels:
        factors = rng.uniform(1 - level, 1 + level, (samples, compiled.network.reactions))
        shifted, failures = _rest(
            simulator, compiled, rows, tolerance, rates=compiled.network.rates * factors
        )
        for k, name in enumerate(names):
            part = np.abs(shifted[:, edges[k] : edges[k + 1]] - base[0, edges[k] : edges[k + 1]])
            worst = part.max(axis=1) if len(part) else np.array([np.nan])
            out.append(
                {
                    "level": float(level),
                    "variable": name,
                    "mean_shift": float(worst.mean()),
                    "max_shift": float(worst.max()),
                    "failed": failures,
                }
            )
    return out


def basins(
    compiled: CompiledGraph,
    rows: Sequence[int],
    simulator: Any,
    starts: int,
    seed: int,
    tolerance: float,
) -> dict[str, Any]:
    """Steady states from `starts` random initial conditions (each conserved group drawn
    from a flat Dirichlet): the distinct fixed points among them, the uniform start's
    first, each with its basin evidence — how many random starts reached it and its
    distance (max |belief difference| on `rows`) from the uniform start's — and the
    beliefs on `rows` it holds; their number, the largest distance, the failed starts."""
    rng = np.random.default_rng(seed)
    initial = np.repeat(compiled.network.initial[None, :], starts, axis=0)
    for group in compiled.conserved:
        initial[:, list(group)] = rng.dirichlet(np.ones(len(group)), starts)
    base, _ = _rest(simulator, compiled, rows, tolerance)
    found, failures = _rest(simulator, compiled, rows, tolerance, initial=initial)
    distinct: list[np.ndarray] = [base[0]]
    reached = [0]
    for beliefs in found:
        near = next(
            (k for k, d in enumerate(distinct) if np.abs(beliefs - d).max() <= DISTINCT), None
        )
        if near is not None:
            reached[near] += 1
        else:
            distinct.append(beliefs)
            reached.append(1)
    spread = float(np.abs(found - base[0]).max()) if len(found) else float("nan")
    return {
        "starts": starts,
        "fixed_points": len(distinct),
        "points": [
            {
                "reached_from": count,
                "distance_from_uniform": float(np.abs(point - base[0]).max()),
                "beliefs": [float(b) for b in point],
            }
            for point, count in zip(distinct, reached, strict=True)
        ],
        "largest_distance": spread,
        "failed": failures,
    }


def relaxation_time(compiled: CompiledGraph, x: np.ndarray) -> float | None:
    """τ = 1 / (−Re λ) for the slowest eigenvalue λ of the Jacobian at `x` off the
    conserved directions (one zero eigenvalue per conserved group); None above
    DENSE_LIMIT species or when the state is not attracting."""
    species = len(compiled.network.species)
    if species > DENSE_LIMIT:
        return None
    jacobian = _jacobian(compiled.network, x)
    values = np.sort(-np.linalg.eigvals(jacobian).real)
    rest = values[len(compiled.conserved) :]  # drop the conserved directions' zeros
    if len(rest) == 0 or rest[0] <= 0:
        return None
    return float(1.0 / rest[0])


def _jacobian(network: Any, x: np.ndarray) -> np.ndarray:
    """N ∂v/∂x at x (dense), v_r = k_r Π x_s^ν_s."""
    rates = np.zeros((network.reactions, len(network.species)))
    offsets, members, powers = (
        network.reactant_offsets,
        network.reactant_species,
        network.reactant_coefficients,
    )
    for r in range(network.reactions):
        span = range(offsets[r], offsets[r + 1])
        for e in span:
            value = network.rates[r] * powers[e] * x[members[e]] ** (powers[e] - 1)
            for f in span:
                if f != e:
                    value *= x[members[f]] ** powers[f]
            rates[r, members[e]] += value
    return np.asarray(network.net_stoichiometry() @ rates)


def noise(
    compiled: CompiledGraph,
    rows: Sequence[int],
    deterministic: np.ndarray,
    volumes: Sequence[float],
    seeds: int,
    stochastic: Callable[[float, int], CRNBackend],
) -> list[dict[str, Any]]:
    """Per volume: bias (max abs of mean − deterministic over survivors' states) and spread
    (largest standard deviation across `seeds` runs) of the time-averaged beliefs of the
    stochastic simulator `stochastic(volume, seed)` makes (crn.ssa)."""
    out = []
    for volume in volumes:
        runs = []
        for seed in range(seeds):
            rest = stochastic(volume, seed).steady_state(compiled.network)
            runs.append(_beliefs(compiled, rows, rest.concentrations))
        stack = np.array(runs)
        spread = float(stack.std(axis=0, ddof=1).max()) if seeds > 1 else 0.0
        bias = float(np.abs(stack.mean(axis=0) - deterministic).max())
        out.append({"volume": float(volume), "bias": bias, "spread": spread})
    return out
