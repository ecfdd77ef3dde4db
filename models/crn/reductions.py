"""Factor-graph reductions that keep BP fixed points on the surviving variables exact
(deformation retractions of the factor graph; shared/notes/crn.md §2):

- leaves: a variable in a single factor (besides unary factors on it) is summed out of
  that factor times its unaries (repeatedly, so dangling trees fold into unary factors on
  the core); the factor's messages to the rest are unchanged;
- degree2: a variable y in exactly two factors f, g whose scopes meet only in y becomes
  h = Σ_y f·g (unary factors on y merged in first); messages through y are unchanged;
- unary: several unary factors on one variable become their product;
- evidence: a clamped variable x_v = s is removed and its factors sliced at s (exact against
  the graph with the indicator factor δ(x_v = s), see `with_evidence`); unary indicator
  factors already in the graph (one positive entry) clamp their variable the same way, so
  a graph recovered from a CRN compiled with evidence sheds its observed variables.
Merging parallel factors would remove a cycle and is not offered (not exact).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from .tables import product, sum_out

MOVES = ("evidence", "leaves", "unary", "degree2")

Pool = list[tuple[tuple[int, ...], np.ndarray]]


@dataclass(frozen=True)
class Reduction:
    """The reduced graph; survivors[new index] = index in the original graph; counts of
    each move applied."""

    graph: FactorGraph
    survivors: tuple[int, ...]
    applied: dict[str, int]


def with_evidence(graph: FactorGraph, evidence: Mapping[int, int]) -> FactorGraph:
    """`graph` with an indicator unary factor δ(x_v = s) per observed variable."""
    factors = [(f.scope, f.table) for f in graph.factors]
    for variable, state in evidence.items():
        _check_state(graph, variable, state)
        indicator = np.zeros(graph.cardinalities[variable])
        indicator[state] = 1.0
        factors.append(((variable,), indicator))
    return FactorGraph.build(graph.cardinalities, factors, graph.names)


def reduce(
    graph: FactorGraph,
    moves: Iterable[str] = MOVES,
    keep: Iterable[int] = (),
    evidence: Mapping[int, int] | None = None,
) -> Reduction:
    """Apply `moves` until none applies; variables in `keep` are never removed."""
    moves = tuple(moves)
    unknown = sorted(set(moves) - set(MOVES))
    if unknown:
        raise ValueError(f"unknown reductions {unknown}; allowed: {', '.join(MOVES)}")
    keep = set(keep)
    alive = set(range(graph.variables))
    pool: Pool = [(f.scope, f.table) for f in graph.factors]
    applied = dict.fromkeys(moves, 0)
    if "evidence" in moves:
        clamped = dict(evidence or {})
        for scope, table in pool:
            if len(scope) == 1 and scope[0] not in keep and np.count_nonzero(table) == 1:
                clamped.setdefault(scope[0], int(np.flatnonzero(table)[0]))
        for variable, state in clamped.items():
            _check_state(graph, variable, state)
            pool = [_slice(scope, table, variable, state) for scope, table in pool]
            pool = [(s, t) for s, t in pool if s]  # constants carry no information
            alive.discard(variable)
            applied["evidence"] += 1
    changed = True
    while changed:
        changed = False
        for move in ("leaves", "unary", "degree2"):
            if move in moves:
                pool, done = _MOVES[move](pool, alive, keep)
                applied[move] += done
                changed |= done > 0
    survivors = tuple(sorted(alive))
    new = {old: i for i, old in enumerate(survivors)}
    reduced = FactorGraph.build(
        [graph.cardinalities[v] for v in survivors],
        [(tuple(new[v] for v in scope), table / table.max()) for scope, table in pool],
        [graph.names[v] for v in survivors],
    )
    return Reduction(reduced, survivors, applied)


def _check_state(graph: FactorGraph, variable: int, state: int) -> None:
    if not 0 <= variable < graph.variables:
        raise ValueError(f"evidence on variable {variable}: out of range 0..{graph.variables - 1}")
    if not 0 <= state < graph.cardinalities[variable]:
        raise ValueError(
            f"evidence x_{variable} = {state}: states are 0..{graph.cardinalities[variable] - 1}"
        )


def _slice(scope: tuple[int, ...], table: np.ndarray, variable: int, state: int) -> tuple:
    if variable not in scope:
        return scope, table
    axis = scope.index(variable)
    return scope[:axis] + scope[axis + 1 :], np.take(table, state, axis=axis)


def _degree(pool: Pool, variable: int) -> list[int]:
    return [k for k, (scope, _) in enumerate(pool) if variable in scope]


def _leaves(pool: Pool, alive: set[int], keep: set[int]) -> tuple[Pool, int]:
    done = 0
    for variable in sorted(alive - keep):
        touching = _degree(pool, variable)
        if len([k for k in touching if pool[k][0] != (variable,)]) > 1:
            continue
        scope, table = sum_out(*product(pool[k] for k in touching), [variable])
        rest = [f for j, f in enumerate(pool) if j not in touching]
        pool = rest + ([(scope, table)] if scope else [])
        alive.discard(variable)
        done += 1
    return pool, done


def _unary(pool: Pool, alive: set[int], keep: set[int]) -> tuple[Pool, int]:
    done = 0
    for variable in sorted(alive):
        unary = [k for k, (scope, _) in enumerate(pool) if scope == (variable,)]
        if len(unary) < 2:
            continue
        merged = product(pool[k] for k in unary)
        pool = [f for j, f in enumerate(pool) if j not in unary] + [merged]
        done += len(unary) - 1
    return pool, done


def _degree2(pool: Pool, alive: set[int], keep: set[int]) -> tuple[Pool, int]:
    done = 0
    for variable in sorted(alive - keep):
        touching = _degree(pool, variable)
        unary = [k for k in touching if pool[k][0] == (variable,)]
        larger = [k for k in touching if k not in unary]
        if len(larger) != 2:
            continue
        first, second = (pool[k][0] for k in larger)
        if set(first) & set(second) != {variable}:
            continue  # the two factors share more than y: merging would cut a cycle
        scope, table = sum_out(*product(pool[k] for k in touching), [variable])
        pool = [f for j, f in enumerate(pool) if j not in touching] + [(scope, table)]
        alive.discard(variable)
        done += 1
    return pool, done


_MOVES = {"leaves": _leaves, "unary": _unary, "degree2": _degree2}
