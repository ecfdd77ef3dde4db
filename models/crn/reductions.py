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

Every candidate move is priced by the Napp–Adams size formulas (`models/crn/size.py`) and
applied only when the CRN it leaves is smaller — fewer reactions, or as many reactions and
fewer species — unless `allow_growth` is set: eliminating a degree-2 variable merges two
tables into a wider one and can enlarge the CRN. Leaves, unary merges and evidence always
shrink it. Without `keep`, one variable per connected component (after evidence) is kept —
the one in most factors, the first in file order among equals — so that a reduction always
leaves something to compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from .errors import ImpossibleEvidenceError
from .size import Size, factor_size, graph_size, variable_size
from .tables import product, sum_out

MOVES = ("evidence", "leaves", "unary", "degree2")

Pool = list[tuple[tuple[int, ...], np.ndarray]]


@dataclass(frozen=True)
class Step:
    """One applied move: which, on which variable (its name), and the CRN's size after."""

    move: str
    variable: str
    species: int
    reactions: int


@dataclass(frozen=True)
class Reduction:
    """The reduced graph; survivors[new index] = index in the original graph; counts of
    each move applied; the moves in order with sizes after each (`start`: the size of the
    original CRN, evidence as indicator factors); moves declined because they would have
    enlarged the CRN; the variables kept (given, or one per component by default)."""

    graph: FactorGraph
    survivors: tuple[int, ...]
    applied: dict[str, int]
    start: Size
    steps: tuple[Step, ...]
    declined: dict[str, int]
    kept: tuple[int, ...]


def with_evidence(graph: FactorGraph, evidence: Mapping[int, int]) -> FactorGraph:
    """`graph` with an indicator unary factor δ(x_v = s) per observed variable."""
    factors = [(f.scope, f.table) for f in graph.factors]
    for variable, state in evidence.items():
        _check_state(graph, variable, state)
        indicator = np.zeros(graph.cardinalities[variable])
        indicator[state] = 1.0
        factors.append(((variable,), indicator))
    return FactorGraph.build(graph.cardinalities, factors, graph.names, states=graph.states)


class _State:
    """The factors and live variables during a reduction, with the CRN's size kept up to
    date move by move."""

    def __init__(self, graph: FactorGraph, allow_growth: bool) -> None:
        self.graph = graph
        self.cards = graph.cardinalities
        self.pool: Pool = [(f.scope, f.table) for f in graph.factors]
        self.alive = set(range(graph.variables))
        self.allow_growth = allow_growth
        self.size = graph_size(graph)
        self.steps: list[Step] = []
        self.declined: dict[str, int] = {}

    def replace(
        self,
        move: str,
        variable: int,
        gone: list[int],
        new: Pool,
        removed: bool = True,
        priced: bool = True,
    ) -> bool:
        """Replace the factors at `gone` by `new` (and drop `variable` if `removed`) when
        that shrinks the CRN, growth is allowed or the move is not `priced`; whether it
        was done."""
        change = sum((factor_size(s, t, self.cards) for s, t in new), Size(0, 0))
        change -= sum((factor_size(*self.pool[k], self.cards) for k in gone), Size(0, 0))
        if removed:
            change -= variable_size(self.cards[variable])
        if priced and not (change.shrinks or self.allow_growth):
            self.declined[move] = self.declined.get(move, 0) + 1
            return False
        self.pool = [f for j, f in enumerate(self.pool) if j not in set(gone)] + new
        if removed:
            self.alive.discard(variable)
        self.size += change
        self.steps.append(
            Step(move, self.graph.names[variable], self.size.species, self.size.reactions)
        )
        return True


def reduce(
    graph: FactorGraph,
    moves: Iterable[str] = MOVES,
    keep: Iterable[int] = (),
    evidence: Mapping[int, int] | None = None,
    allow_growth: bool = False,
) -> Reduction:
    """Apply `moves` until none applies (or none shrinks the CRN, unless `allow_growth`);
    variables in `keep` are never removed, and without `keep` one per connected component
    stays.

    Example:
        >>> from substrates.datasets.crn.generators import chain
        >>> reduction = reduce(chain(10, 3, seed=0), keep=[4])
        >>> reduction.survivors, reduction.steps[-1].reactions < reduction.start.reactions
        ((4,), True)
    """
    moves = tuple(moves)
    unknown = sorted(set(moves) - set(MOVES))
    if unknown:
        raise ValueError(f"unknown reductions {unknown}; allowed: {', '.join(MOVES)}")
    kept = set(keep)
    clamped = dict(evidence or {})
    for variable, value in clamped.items():
        _check_state(graph, variable, value)
    start = with_evidence(graph, clamped) if clamped else graph
    state = _State(start, allow_growth)
    begin = state.size
    applied = dict.fromkeys(moves, 0)
    if "evidence" in moves:
        for scope, table in state.pool:
            if len(scope) == 1 and scope[0] not in kept and np.count_nonzero(table) == 1:
                clamped.setdefault(scope[0], int(np.flatnonzero(table)[0]))
        for variable, value in sorted(clamped.items()):
            gone = [k for k, (scope, _) in enumerate(state.pool) if variable in scope]
            sliced = [_slice(*state.pool[k], variable, value) for k in gone]
            for (scope, _), (_, table) in zip((state.pool[k] for k in gone), sliced, strict=True):
                if not table.any():
                    names = ", ".join(graph.names[v] for v in scope)
                    raise ImpossibleEvidenceError(
                        f"the evidence {graph.names[variable]} = "
                        f"{graph.states[variable][value]} has probability zero: the factor "
                        f"over ({names}) is zero there"
                    )
            state.replace(
                "evidence", variable, gone, [(s, t) for s, t in sliced if s], priced=False
            )  # clamping is never priced out
            applied["evidence"] += 1
    if not kept:
        kept = _one_per_component(state.pool, state.alive)
    changed = True
    while changed:
        changed = False
        for move in ("leaves", "unary", "degree2"):
            if move in moves:
                done = _MOVES[move](state, kept)
                applied[move] += done
                changed |= done > 0
    survivors = tuple(sorted(state.alive))
    new = {old: i for i, old in enumerate(survivors)}
    reduced = FactorGraph.build(
        [graph.cardinalities[v] for v in survivors],
        [(tuple(new[v] for v in scope), table / table.max()) for scope, table in state.pool],
        [graph.names[v] for v in survivors],
        states=[graph.states[v] for v in survivors],
    )
    return Reduction(
        reduced, survivors, applied, begin, tuple(state.steps), state.declined, tuple(sorted(kept))
    )


def _one_per_component(pool: Pool, alive: set[int]) -> set[int]:
    """In each connected component of the live variables, the variable in most factors
    (the first in file order among equals)."""
    parent = {v: v for v in alive}

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    degree = dict.fromkeys(alive, 0)
    for scope, _ in pool:
        for v in scope:
            degree[v] += 1
            parent[root(v)] = root(scope[0])
    best: dict[int, int] = {}
    for v in sorted(alive):
        r = root(v)
        if r not in best or degree[v] > degree[best[r]]:
            best[r] = v
    return set(best.values())


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


def _touching(pool: Pool, variable: int) -> list[int]:
    return [k for k, (scope, _) in enumerate(pool) if variable in scope]


def _leaves(state: _State, keep: set[int]) -> int:
    done = 0
    for variable in sorted(state.alive - keep):
        touching = _touching(state.pool, variable)
        if len([k for k in touching if state.pool[k][0] != (variable,)]) > 1:
            continue
        scope, table = sum_out(*product(state.pool[k] for k in touching), [variable])
        done += state.replace("leaves", variable, touching, [(scope, table)] if scope else [])
    return done


def _unary(state: _State, keep: set[int]) -> int:
    done = 0
    for variable in sorted(state.alive):
        unary = [k for k, (scope, _) in enumerate(state.pool) if scope == (variable,)]
        if len(unary) < 2:
            continue
        merged = product(state.pool[k] for k in unary)
        if state.replace("unary", variable, unary, [merged], removed=False):
            done += len(unary) - 1
    return done


def _degree2(state: _State, keep: set[int]) -> int:
    done = 0
    for variable in sorted(state.alive - keep):
        touching = _touching(state.pool, variable)
        unary = [k for k in touching if state.pool[k][0] == (variable,)]
        larger = [k for k in touching if k not in unary]
        if len(larger) != 2:
            continue
        first, second = (state.pool[k][0] for k in larger)
        if set(first) & set(second) != {variable}:
            continue  # the two factors share more than y: merging would cut a cycle
        scope, table = sum_out(*product(state.pool[k] for k in touching), [variable])
        done += state.replace("degree2", variable, touching, [(scope, table)])
    return done


_MOVES = {"leaves": _leaves, "unary": _unary, "degree2": _degree2}
