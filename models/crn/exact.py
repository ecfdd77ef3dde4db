"""Exact marginals by variable elimination (greedy min-fill order) for small graphs."""

from __future__ import annotations

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from .tables import product, sum_out


def marginals(graph: FactorGraph, max_width: int = 20) -> list[np.ndarray]:
    """P(x_i) for every variable. Raises ValueError when an elimination step would build
    a table over more than `max_width` variables (the graph is too wide for exact inference)."""
    return [_marginal(graph, query, max_width) for query in range(graph.variables)]


def _marginal(graph: FactorGraph, query: int, max_width: int) -> np.ndarray:
    pool = [(f.scope, f.table) for f in graph.factors]
    remaining = [v for v in range(graph.variables) if v != query]
    while remaining:
        variable = min(remaining, key=lambda v: _fill(pool, v))
        remaining.remove(variable)
        touching = [f for f in pool if variable in f[0]]
        if not touching:
            continue
        pool = [f for f in pool if variable not in f[0]]
        scope, table = product(touching)
        if len(scope) > max_width:
            raise ValueError(f"exact inference needs a table over {len(scope)} variables")
        pool.append(sum_out(scope, table / table.max(), [variable]))
    touching = [f for f in pool if query in f[0]]
    if not touching:
        return np.full(graph.cardinalities[query], 1.0 / graph.cardinalities[query])
    _, table = product(touching)
    table = table.reshape(-1)
    return table / table.sum()


def _fill(pool: list[tuple[tuple[int, ...], np.ndarray]], variable: int) -> int:
    """Size of the scope an elimination of `variable` would create."""
    return len({v for scope, _ in pool if variable in scope for v in scope})
