"""Robust value iteration: V(s) ← max_a min_u E_u[r + γ V(s')], the min by any InnerMinimizer."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .inner import InnerMinimizer
from .mdp import RobustMDP
from .solution import RobustSolution


def robust_value_iteration(
    mdp: RobustMDP,
    minimizer: InnerMinimizer,
    tolerance: float = 1e-4,
    max_sweeps: int = 1000,
    progress: Callable[[int, float], None] | None = None,
) -> RobustSolution:
    """Sweep until the values move less than `tolerance`; all (s, a) of a sweep at once.

    `progress(sweep, change)` is called after each sweep.
    """
    states = np.flatnonzero(~mdp.terminal)
    pairs = [(int(s), a) for s in states for a in range(mdp.num_actions)]
    values = np.zeros(mdp.num_states)
    q = np.zeros((mdp.num_states, mdp.num_actions))
    solution = RobustSolution(policy=np.zeros(mdp.num_states, dtype=np.int64), q=q, iterations=0)
    for sweep in range(1, max_sweeps + 1):
        backup = mdp.backup_tables(values)
        tables = [backup[s, a] for s, a in pairs]
        results = minimizer.argmin_many(tables)
        solution.record(sweep, pairs, tables, results)
        for (s, a), result in zip(pairs, results, strict=True):
            q[s, a] = result.value
        new_values = np.where(mdp.terminal, 0.0, q.max(axis=1))
        change = float(np.max(np.abs(new_values - values)))
        values = new_values
        solution.iterations = sweep
        if progress is not None:
            progress(sweep, change)
        if change < tolerance:
            break
    solution.policy = np.argmax(q, axis=1)
    return solution


def nominal_policy(mdp: RobustMDP, tolerance: float = 1e-8) -> np.ndarray:
    """The optimal policy for the nominal member alone (what a non-robust user would run)."""
    p, r = mdp.transitions[mdp.nominal], mdp.expected_rewards()[mdp.nominal]
    values = np.zeros(mdp.num_states)
    while True:
        q = r + mdp.gamma * p @ values
        new_values = np.where(mdp.terminal, 0.0, q.max(axis=1))
        if np.max(np.abs(new_values - values)) < tolerance:
            return np.argmax(q, axis=1)
        values = new_values
