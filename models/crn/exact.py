"""Exact marginals by variable elimination (greedy min-fill order) for small graphs."""

from __future__ import annotations

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from ...errors import SubstratesError
from .tables import product, sum_out

MAX_ENTRIES = 10_000_000
"""Largest table an elimination step may build by default (entries)."""


class TooWideError(SubstratesError, ValueError):
    """Exact inference would build a table beyond the limits."""


def marginals(
    graph: FactorGraph, max_width: int = 20, max_entries: int = MAX_ENTRIES
) -> list[np.ndarray]:
    """P(x_i) for every variable. Raises TooWideError when an elimination step would build
    a table over more than `max_width` variables or `max_entries` entries (the graph is too
    wide for exact inference); a graph whose product is zero everywhere gives NaN."""
    return [_eliminate(graph, query, max_width, max_entries)[0] for query in range(graph.variables)]


def log_partition(graph: FactorGraph, max_width: int = 20, max_entries: int = MAX_ENTRIES) -> float:
    """log Σ_x Π_a ψ_a(x_a) by variable elimination (−inf when the product is zero
    everywhere); raises TooWideError as `marginals` does."""
    return _eliminate(graph, None, max_width, max_entries)[1]


def _eliminate(
    graph: FactorGraph, query: int | None, max_width: int, max_entries: int
) -> tuple[np.ndarray, float]:
    """(P(x_query), log Z): every other variable eliminated in greedy min-fill order, each
    new table rescaled to max 1 with the scale kept in log Z."""
    pool = [(f.scope, f.table) for f in graph.factors]
    remaining = [v for v in range(graph.variables) if v != query]
    log_z = 0.0
    while remaining:
        variable = min(remaining, key=lambda v: _fill(pool, v))
        remaining.remove(variable)
        touching = [f for f in pool if variable in f[0]]
        if not touching:
            log_z += float(np.log(graph.cardinalities[variable]))
            continue
        union = {v for scope, _ in touching for v in scope}
        entries = int(np.prod([graph.cardinalities[v] for v in union], dtype=float))
        if len(union) > max_width or entries > max_entries:
            raise TooWideError(
                f"exact inference needs a table over {len(union)} variables ({entries:,} entries)"
            )
        pool = [f for f in pool if variable not in f[0]]
        scope, table = sum_out(*product(touching), [variable])
        peak = float(table.max())
        if peak == 0.0:
            return np.full(graph.cardinalities[query or 0], np.nan), -np.inf
        log_z += float(np.log(peak))
        pool.append((scope, table / peak))
    if query is None:
        rest = [t for _, t in pool]
        return np.empty(0), log_z + float(np.log(np.prod([float(t) for t in rest])))
    touching = [f for f in pool if query in f[0]]
    constant = float(np.prod([float(t) for s, t in pool if not s]))
    if not touching:
        states = graph.cardinalities[query]
        return np.full(states, 1.0 / states), log_z + float(np.log(constant * states))
    _, table = product(touching)
    table = table.reshape(-1)
    total = float(table.sum())
    if total == 0.0:
        return np.full(len(table), np.nan), -np.inf
    return table / total, log_z + float(np.log(total * constant))


def _fill(pool: list[tuple[tuple[int, ...], np.ndarray]], variable: int) -> int:
    """Size of the scope an elimination of `variable` would create."""
    return len({v for scope, _ in pool if variable in scope for v in scope})
