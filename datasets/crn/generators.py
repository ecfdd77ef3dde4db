"""Standard test graphs (as in libDAI's createfg): chains, random trees, Ising grids (random
or uniform), HMMs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .factor_graph import FactorGraph


def chain(length: int, states: int, seed: int) -> FactorGraph:
    """Pairwise chain with a unary factor on every variable; tables exp(N(0, 1))."""
    rng = np.random.default_rng(seed)
    factors: list[tuple[tuple[int, ...], np.ndarray]] = [
        ((i, i + 1), np.exp(rng.normal(0, 1, (states, states)))) for i in range(length - 1)
    ]
    factors += [((i,), np.exp(rng.normal(0, 0.5, states))) for i in range(length)]
    return FactorGraph.build([states] * length, factors)


def random_tree(variables: int, states: int, seed: int) -> FactorGraph:
    """Each variable after the first hangs from a random earlier one; unary on all."""
    rng = np.random.default_rng(seed)
    factors: list[tuple[tuple[int, ...], np.ndarray]] = []
    for child in range(1, variables):
        parent = int(rng.integers(0, child))
        factors.append(((parent, child), np.exp(rng.normal(0, 1, (states, states)))))
    factors += [((v,), np.exp(rng.normal(0, 0.5, states))) for v in range(variables)]
    return FactorGraph.build([states] * variables, factors)


def ising_grid(rows: int, cols: int, coupling: float, field: float, seed: int) -> FactorGraph:
    """Binary spins s = ±1 on a grid: exp(J s_i s_j), J ~ N(0, coupling²), and exp(h s_i),
    h ~ N(0, field²)."""
    rng = np.random.default_rng(seed)
    return _spins(rows, cols, lambda: rng.normal(0, coupling), lambda: rng.normal(0, field))


def ferromagnet(rows: int, cols: int, coupling: float, field: float) -> FactorGraph:
    """Binary spins on a grid with one coupling J and one field h everywhere (symmetric:
    lifted compression folds it onto the orbits of the square's symmetries)."""
    return _spins(rows, cols, lambda: coupling, lambda: field)


def _spins(
    rows: int, cols: int, coupling: Callable[[], float], field: Callable[[], float]
) -> FactorGraph:
    """exp(J s_i s_j) per grid edge and exp(h s_i) per spin, J and h drawn in grid order."""
    spin = np.array([-1.0, 1.0])
    index = {(r, c): r * cols + c for r in range(rows) for c in range(cols)}
    factors: list[tuple[tuple[int, ...], np.ndarray]] = []
    for (r, c), i in index.items():
        for other in ((r + 1, c), (r, c + 1)):
            if other in index:
                factors.append(((i, index[other]), np.exp(coupling() * np.outer(spin, spin))))
        factors.append(((i,), np.exp(field() * spin)))
    return FactorGraph.build([2] * rows * cols, factors)


def hmm(length: int, hidden: int, symbols: int, seed: int) -> tuple[FactorGraph, dict[int, int]]:
    """Hidden chain z_0..z_{T−1} (variables 0..T−1) with emissions x_t (variables T..2T−1),
    random stochastic matrices, and a sampled observation sequence as evidence."""
    rng = np.random.default_rng(seed)
    transition = rng.dirichlet(np.ones(hidden), hidden)
    emission = rng.dirichlet(np.ones(symbols), hidden)
    start = rng.dirichlet(np.ones(hidden))
    factors: list[tuple[tuple[int, ...], np.ndarray]] = [((0,), start)]
    factors += [((t, t + 1), transition) for t in range(length - 1)]
    factors += [((t, length + t), emission) for t in range(length)]
    z, observed = rng.choice(hidden, p=start), {}
    for t in range(length):
        observed[length + t] = int(rng.choice(symbols, p=emission[z]))
        z = rng.choice(hidden, p=transition[z])
    return FactorGraph.build([hidden] * length + [symbols] * length, factors), observed
