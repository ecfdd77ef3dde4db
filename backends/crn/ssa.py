"""`crn.ssa`: exact stochastic simulation (Gillespie's direct method) at a chosen volume.

Counts start at the initial concentrations times the volume, rounded. A reaction with
reactant coefficients ν fires with propensity k·V·Π_s n_s^(ν_s)/V^ν_s, n^(ν) the falling
factorial n(n−1)…(n−ν+1) (so homodimers are counted right). The steady state is the time
average of counts/V after a burn-in."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numba import njit
from pydantic import Field

from ..base import BackendOptions
from .base import CRNBackend, CRNCapabilities, SteadyState


@njit(cache=True)
def _propensity(
    r: int, n: np.ndarray, offsets: np.ndarray, species: np.ndarray, coefficients: np.ndarray,
    rates: np.ndarray, volume: float,
) -> float:  # fmt: skip
    value = rates[r] * volume
    for e in range(offsets[r], offsets[r + 1]):
        count = n[species[e]]
        for m in range(coefficients[e]):
            value *= (count - m) / volume
    return value


@njit(cache=True)
def _gillespie(
    n: np.ndarray, reactant: tuple, product: tuple, rates: np.ndarray, volume: float,
    t_end: float, t_average: float, record: np.ndarray, seed: int,
) -> tuple:  # fmt: skip
    """Run to t_end, writing the counts at the times in record[:, 0] into record[:, 1:];
    returns (reactions fired, ∫ counts dt over [t_average, t_end])."""
    np.random.seed(seed)
    r_off, r_sp, r_co = reactant
    p_off, p_sp, p_co = product
    reactions = len(rates)
    a = np.empty(reactions)
    for r in range(reactions):
        a[r] = _propensity(r, n, r_off, r_sp, r_co, rates, volume)
    integral = np.zeros(len(n))
    t, events, k = 0.0, 0, 0
    times = record.shape[0]
    while True:
        total = a.sum()
        step = np.inf if total <= 0 else -np.log(np.random.random()) / total
        until = min(t + step, t_end)
        while k < times and record[k, 0] <= until:  # sample the state at the record times
            record[k, 1:] = n
            k += 1
        if until > t_average:
            integral += n * (until - max(t, t_average))
        if t + step >= t_end:
            break
        t += step
        threshold = np.random.random() * total
        chosen, running = reactions - 1, 0.0
        for r in range(reactions):
            running += a[r]
            if running >= threshold:
                chosen = r
                break
        for e in range(r_off[chosen], r_off[chosen + 1]):
            n[r_sp[e]] -= r_co[e]
        for e in range(p_off[chosen], p_off[chosen + 1]):
            n[p_sp[e]] += p_co[e]
        for r in range(reactions):  # mass action: cheap enough to refresh all
            a[r] = _propensity(r, n, r_off, r_sp, r_co, rates, volume)
        events += 1
    return events, integral


class SsaOptions(BackendOptions):
    """volume: molecules per unit concentration (error shrinks as 1/√volume); seed;
    burn_in, average: simulated time before and over which steady-state counts are averaged."""

    volume: float = Field(1000.0, gt=0)
    seed: int = 0
    burn_in: float = Field(50.0, ge=0)
    average: float = Field(500.0, gt=0)


class SsaBackend(CRNBackend):
    """Exact Gillespie simulation of the network's molecule counts."""

    name: ClassVar[str] = "crn.ssa"
    tier: ClassVar = "simulator"
    Options: ClassVar = SsaOptions
    requires: ClassVar = ("numba",)

    options: SsaOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=True, batched=False)

    def _counts(self, network: Any) -> np.ndarray:
        return np.rint(np.asarray(network.initial) * self.options.volume).astype(np.int64)

    def _run(self, network: Any, t_end: float, t_average: float, times: np.ndarray) -> tuple:
        record = np.zeros((len(times), len(network.species) + 1))
        record[:, 0] = times
        n = self._counts(network)
        events, integral = _gillespie(
            n, (network.reactant_offsets, network.reactant_species, network.reactant_coefficients),
            (network.product_offsets, network.product_species, network.product_coefficients),
            np.asarray(network.rates, dtype=float), self.options.volume, t_end, t_average,
            record, self.options.seed,
        )  # fmt: skip
        return record[:, 1:] / self.options.volume, integral, events

    def simulate(self, network: Any, times: np.ndarray) -> np.ndarray:
        """Concentrations (counts / volume) of one trajectory at `times`."""
        times = np.asarray(times, dtype=float)
        states, _, _ = self._run(network, float(times[-1]), np.inf, times)
        return states

    def steady_state(self, network: Any, tolerance: float = 1e-12) -> SteadyState:
        """Time-averaged concentrations over [burn_in, burn_in + average]; `residual` is
        max |dx/dt| of the deterministic rates there (a statistical, not a solver, error)."""
        from .mass_action import largest_rate

        o = self.options
        end = o.burn_in + o.average
        _, integral, _ = self._run(network, end, o.burn_in, np.empty(0))
        mean = integral / o.average / o.volume
        speed = largest_rate(network, mean)
        return SteadyState(mean, end, speed)
