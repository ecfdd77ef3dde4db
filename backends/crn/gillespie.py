"""Gillespie's direct method as numba kernels (imported by `crn.ssa` when it first runs:
numba is an extra, and listing backends must not need it)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def propensity(
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
def gillespie(
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
        a[r] = propensity(r, n, r_off, r_sp, r_co, rates, volume)
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
            a[r] = propensity(r, n, r_off, r_sp, r_co, rates, volume)
        events += 1
    return events, integral
