"""Stochastic simulation kernels (numba; imported by `crn.ssa` when it first runs: numba is
an extra, and listing backends must not need it).

Exact SSA: the logarithmic direct method (Li & Petzold 2006). Propensities sit in the
leaves of a complete binary sum tree; a reaction is selected by descending the tree
(O(log R)), and after it fires only the propensities of the reactions that read a species it
changed are recomputed (the dependency graph), each update walking one leaf-to-root path.
Parents are recomputed as sums of their children, so rounding never accumulates.

Tau-leaping (Cao, Gillespie & Petzold 2006, J. Chem. Phys. 124:044109): the leap τ keeps
the expected relative change of every reactant species below ε (mean and variance bounds
with g_i = the highest order of a reaction consuming species i); each reaction fires a
Poisson number of times; a leap that would drive a count negative is halved and retried;
when τ is below 10 / a₀ the kernel takes 100 exact steps instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def propensity(
    r: int,
    n: np.ndarray,
    offsets: np.ndarray,
    species: np.ndarray,
    coefficients: np.ndarray,
    rates: np.ndarray,
    volume: float,
) -> float:
    value = rates[r] * volume
    for e in range(offsets[r], offsets[r + 1]):
        count = n[species[e]]
        for m in range(coefficients[e]):
            value *= (count - m) / volume
    return value


@njit(cache=True)
def net_changes(reactant: tuple, product: tuple, species: int) -> tuple:
    """CSR (offsets, species, change) over reactions: each species whose count a firing
    changes, and by how much (catalysts, unchanged, are left out)."""
    r_off, r_sp, r_co = reactant
    p_off, p_sp, p_co = product
    reactions = len(r_off) - 1
    change = np.zeros(species, dtype=np.int64)
    offsets = np.zeros(reactions + 1, dtype=np.int64)
    who, how = [], []
    for r in range(reactions):
        for e in range(r_off[r], r_off[r + 1]):
            change[r_sp[e]] -= r_co[e]
        for e in range(p_off[r], p_off[r + 1]):
            change[p_sp[e]] += p_co[e]
        for side_off, side_sp in ((r_off, r_sp), (p_off, p_sp)):
            for e in range(side_off[r], side_off[r + 1]):
                s = side_sp[e]
                if change[s] != 0:
                    who.append(s)
                    how.append(change[s])
                    change[s] = 0
        offsets[r + 1] = len(who)
    return offsets, np.array(who, dtype=np.int64), np.array(how, dtype=np.int64)


@njit(cache=True)
def dependencies(reactant: tuple, net: tuple, species: int) -> tuple:
    """CSR (offsets, reactions): for each reaction, the reactions whose propensity reads a
    species whose count it changes (itself included when it changes its own reactants)."""
    r_off, r_sp, _ = reactant
    n_off, n_sp, _ = net
    reactions = len(r_off) - 1
    readers_count = np.zeros(species + 1, dtype=np.int64)
    for e in range(len(r_sp)):
        readers_count[r_sp[e] + 1] += 1
    readers_off = np.cumsum(readers_count)
    readers = np.empty(len(r_sp), dtype=np.int64)
    fill = readers_off[:-1].copy()
    for r in range(reactions):
        for e in range(r_off[r], r_off[r + 1]):
            readers[fill[r_sp[e]]] = r
            fill[r_sp[e]] += 1
    mark = np.full(reactions, -1, dtype=np.int64)
    offsets = np.zeros(reactions + 1, dtype=np.int64)
    out = []
    for r in range(reactions):
        for e in range(n_off[r], n_off[r + 1]):
            s = n_sp[e]
            for k in range(readers_off[s], readers_off[s + 1]):
                if mark[readers[k]] != r:
                    mark[readers[k]] = r
                    out.append(readers[k])
        offsets[r + 1] = len(out)
    return offsets, np.array(out, dtype=np.int64)


@njit(cache=True)
def _set(tree: np.ndarray, leaves: int, r: int, value: float) -> None:
    node = leaves + r
    tree[node] = value
    node //= 2
    while node >= 1:
        tree[node] = tree[2 * node] + tree[2 * node + 1]
        node //= 2


@njit(cache=True)
def _select(tree: np.ndarray, leaves: int, threshold: float) -> int:
    node = 1
    while node < leaves:
        left = tree[2 * node]
        if threshold < left or tree[2 * node + 1] <= 0.0:
            node = 2 * node
        else:
            threshold -= left
            node = 2 * node + 1
    return node - leaves


@njit(cache=True)
def _fire(r: int, times: int, n: np.ndarray, reactant: tuple, product: tuple) -> None:
    r_off, r_sp, r_co = reactant
    p_off, p_sp, p_co = product
    for e in range(r_off[r], r_off[r + 1]):
        n[r_sp[e]] -= r_co[e] * times
    for e in range(p_off[r], p_off[r + 1]):
        n[p_sp[e]] += p_co[e] * times


@njit(cache=True)
def gillespie(
    n: np.ndarray,
    reactant: tuple,
    product: tuple,
    rates: np.ndarray,
    volume: float,
    t_end: float,
    t_average: float,
    record: np.ndarray,
    seed: int,
    dependents: tuple,
    net: tuple,
    epsilon: float,
) -> tuple:
    """Run to t_end, writing the counts at the times in record[:, 0] into record[:, 1:];
    returns (reactions fired, ∫ counts dt over [t_average, t_end]). `epsilon` > 0 leaps
    (tau-leaping with that bound on relative change); 0 is exact."""
    np.random.seed(seed)
    r_off, r_sp, r_co = reactant
    d_off, d_r = dependents
    reactions = len(rates)
    leaves = 1
    while leaves < max(reactions, 1):
        leaves *= 2
    tree = np.zeros(2 * leaves)
    for r in range(reactions):
        tree[leaves + r] = propensity(r, n, r_off, r_sp, r_co, rates, volume)
    for node in range(leaves - 1, 0, -1):
        tree[node] = tree[2 * node] + tree[2 * node + 1]
    order = np.zeros(len(n))  # highest order of a reaction consuming each species
    for r in range(reactions):
        total = 0
        for e in range(r_off[r], r_off[r + 1]):
            total += r_co[e]
        for e in range(r_off[r], r_off[r + 1]):
            order[r_sp[e]] = max(order[r_sp[e]], total)
    integral = np.zeros(len(n))
    t, events, k, exact_left = 0.0, 0, 0, 0
    samples = record.shape[0]
    while True:
        total = tree[1]
        leap = epsilon > 0 and exact_left == 0 and total > 0
        tau = np.inf
        if leap:
            tau = _leap_length(n, tree, leaves, net, order, epsilon, reactions)
            if tau < 10.0 / total:
                leap, exact_left = False, 100
        if not leap:
            tau = np.inf if total <= 0 else -np.log(np.random.random()) / total
        until = min(t + tau, t_end)
        while k < samples and record[k, 0] <= until:  # sample the state at the record times
            record[k, 1:] = n
            k += 1
        if until > t_average:
            integral += n * (until - max(t, t_average))
        if t + tau >= t_end:
            break
        if leap:
            fired = np.zeros(reactions, dtype=np.int64)
            while True:
                for r in range(reactions):
                    a = tree[leaves + r]
                    fired[r] = np.random.poisson(a * tau) if a > 0 else 0
                trial = n.copy()
                for r in range(reactions):
                    if fired[r]:
                        _fire(r, fired[r], trial, reactant, product)
                if trial.min() >= 0:
                    break
                tau /= 2
            n[:] = trial
            t += tau
            for r in range(reactions):
                events += fired[r]
                tree[leaves + r] = propensity(r, n, r_off, r_sp, r_co, rates, volume)
            for node in range(leaves - 1, 0, -1):
                tree[node] = tree[2 * node] + tree[2 * node + 1]
            continue
        t += tau
        chosen = _select(tree, leaves, np.random.random() * total)
        _fire(chosen, 1, n, reactant, product)
        for e in range(d_off[chosen], d_off[chosen + 1]):
            r = d_r[e]
            _set(tree, leaves, r, propensity(r, n, r_off, r_sp, r_co, rates, volume))
        events += 1
        if exact_left > 0:
            exact_left -= 1
    return events, integral


@njit(cache=True)
def _leap_length(
    n: np.ndarray,
    tree: np.ndarray,
    leaves: int,
    net: tuple,
    order: np.ndarray,
    epsilon: float,
    reactions: int,
) -> float:
    """τ of Cao, Gillespie & Petzold (2006), eq. 33, over the reactant species."""
    n_off, n_sp, n_ch = net
    mean = np.zeros(len(n))
    variance = np.zeros(len(n))
    for r in range(reactions):
        a = tree[leaves + r]
        if a <= 0:
            continue
        for e in range(n_off[r], n_off[r + 1]):
            mean[n_sp[e]] += n_ch[e] * a
            variance[n_sp[e]] += n_ch[e] * n_ch[e] * a
    tau = np.inf
    for s in range(len(n)):
        if order[s] == 0 or (mean[s] == 0 and variance[s] == 0):
            continue
        bound = max(epsilon * n[s] / order[s], 1.0)
        if mean[s] != 0:
            tau = min(tau, bound / abs(mean[s]))
        if variance[s] > 0:
            tau = min(tau, bound * bound / variance[s])
    return tau
