"""Lifted compression: colour passing groups the variables and factors that BP, started from
uniform messages, cannot tell apart, and the Napp–Adams construction runs on the groups.

Colour passing (Kersting, Ahmadi & Natarajan 2009): variables start coloured by their
number of states, factors by their table (entries to 1e-12); then, until the partition stops
refining, a factor's colour becomes (colour, colours of its scope in order) and a
variable's becomes (colour, multiset of (factor colour, its position's block)). Positions
whose axes the table is symmetric in (swapping them leaves it unchanged) form a block: the
scope is listed sorted by colour within each block, so an undirected coupling does not tell
its two ends apart. Every member of a group then receives the same messages at every BP
iteration.

The lifted graph has one supervariable I per variable group, one superfactor A per factor
group, and one lifted edge (A, s) per slot s of A — a (block, variable group) pair of its
scope; n(I, A, s) counts the positions of slot s that a given member of I holds in the
factors of A (the same for every member). The lifted CRN is the Napp–Adams CRN of the
lifted graph with those counts as catalyst stoichiometry: M[I→(A,s)] is catalysed by
M[(B,t)→I] n(I,B,t) times, once fewer for (B,t) = (A,s); the belief B[I] n(I,B,t) times;
M[(A,s)→I], read at the first position p of slot s, by M[(A,slot(q))] component x_q for
every other position q, at rates ψ_A(x). Species S = Σ_(A,s) 2|X_s| + Σ_I |X_I|; reactions
R = Σ_(A,s) [|X_s|(|X_s|−1) + |X_A|(|X_s|−1)] + Σ_I |X_I|(|X_I|−1) for positive tables:
the counts of `napp_adams` on the lifted graph. Where every group has one member, the
lifted CRN is `compile_graph`'s, names aside.

Its rest points are the BP fixed points in which every group's members agree; the original
CRN, started symmetric (uniform), stays symmetric, so both rest at the same point — on
loopy graphs where symmetric fixed points are unstable, the original may drift off by
round-off while the lifted one cannot.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from ...datasets.crn.reaction_network import NetworkBuilder
from .napp_adams import CompiledGraph, convert, recycle


@dataclass(frozen=True)
class Colours:
    """variable[i], factor[a]: group numbers after colour passing; scopes[a]: factor a's
    scope sorted by colour within its blocks; blocks[a][p]: the block of position p."""

    variable: tuple[int, ...]
    factor: tuple[int, ...]
    scopes: tuple[tuple[int, ...], ...]
    blocks: tuple[tuple[int, ...], ...]

    @property
    def groups(self) -> tuple[int, int]:
        """(variable groups, factor groups)."""
        return len(set(self.variable)), len(set(self.factor))

    def slots(self, a: int) -> list[tuple[int, int]]:
        """(block, variable group) of each position of factor a's canonical scope."""
        return [(b, self.variable[i]) for b, i in zip(self.blocks[a], self.scopes[a], strict=True)]


def _renumber(signatures: list) -> list[int]:
    order = {s: n for n, s in enumerate(sorted(set(signatures), key=repr))}
    return [order[s] for s in signatures]


def _blocks(table: np.ndarray) -> list[int]:
    """Block of each axis: axes joined when swapping them leaves the table unchanged."""
    block = list(range(table.ndim))
    for p, q in itertools.combinations(range(table.ndim), 2):
        swapped = np.swapaxes(table, p, q)
        if swapped.shape == table.shape and np.allclose(swapped, table, rtol=1e-12, atol=0):
            block[q] = block[p] if block[q] == q else block[q]
    return block


def colour_passing(graph: FactorGraph) -> Colours:
    """The coarsest partition of variables and factors that BP cannot refine."""
    variable = _renumber([(c,) for c in graph.cardinalities])
    factor = _renumber([(f.table.shape, np.round(f.table, 12).tobytes()) for f in graph.factors])
    blocks = [_blocks(f.table) for f in graph.factors]
    while True:
        order = [
            sorted(range(len(f.scope)), key=lambda p, f=f, b=b: (b[p], variable[f.scope[p]]))
            for f, b in zip(graph.factors, blocks, strict=True)
        ]
        scopes = [tuple(f.scope[p] for p in o) for f, o in zip(graph.factors, order, strict=True)]
        canonical = [tuple(b[p] for p in o) for b, o in zip(blocks, order, strict=True)]
        incidences: list[list[tuple[int, int]]] = [[] for _ in range(graph.variables)]
        new_factor = _renumber(
            [(factor[a], tuple(variable[i] for i in scope)) for a, scope in enumerate(scopes)]
        )
        for a, scope in enumerate(scopes):
            for b, i in zip(canonical[a], scope, strict=True):
                incidences[i].append((new_factor[a], b))
        new_variable = _renumber(
            [(variable[i], tuple(sorted(incidences[i]))) for i in range(graph.variables)]
        )
        stable = len(set(new_variable)) == len(set(variable))
        if stable and len(set(new_factor)) == len(set(factor)):
            return Colours(tuple(new_variable), tuple(new_factor), tuple(scopes), tuple(canonical))
        variable, factor = new_variable, new_factor


def compile_lifted(graph: FactorGraph, colours: Colours | None = None) -> CompiledGraph:
    """The lifted Napp–Adams CRN; `belief` maps every variable of `graph` to its group's
    belief species, so `beliefs()` returns one row per original variable."""
    colours = colours or colour_passing(graph)
    cards = graph.cardinalities
    groups = sorted(set(colours.variable))
    size = {g: cards[colours.variable.index(g)] for g in groups}
    factor_groups = sorted(set(colours.factor))
    representative = {A: colours.factor.index(A) for A in factor_groups}
    slots = {A: list(dict.fromkeys(colours.slots(representative[A]))) for A in factor_groups}
    edges = [(A, s) for A in factor_groups for s in range(len(slots[A]))]
    into = {(A, s): slots[A][s][1] for A, s in edges}
    count: dict[tuple[int, int], int] = Counter()  # (A, s) -> positions of slot s on a member
    first = {g: colours.variable.index(g) for g in groups}
    for a, scope in enumerate(colours.scopes):
        A = colours.factor[a]
        for slot, i in zip(colours.slots(a), scope, strict=True):
            if i == first[colours.variable[i]]:
                count[A, slots[A].index(slot)] += 1

    build = NetworkBuilder()
    for A, s in edges:
        n = size[into[A, s]]
        for k in range(n):
            build.species(f"M[I{into[A, s]}>A{A}.{s}][{k}]", 1.0 / n)
            build.species(f"M[A{A}.{s}>I{into[A, s]}][{k}]", 1.0 / n)
    belief = {
        g: tuple(build.species(f"B[I{g}][{k}]", 1.0 / size[g]) for k in range(size[g]))
        for g in groups
    }
    index = build.index

    def to_factor(e: tuple[int, int], k: int) -> int:
        return index[f"M[I{into[e]}>A{e[0]}.{e[1]}][{k}]"]

    def to_variable(e: tuple[int, int], k: int) -> int:
        return index[f"M[A{e[0]}.{e[1]}>I{into[e]}][{k}]"]

    incoming = {g: [e for e in edges if into[e] == g] for g in groups}
    for e in edges:
        g = into[e]
        recycle(
            build,
            [to_factor(e, k) for k in range(size[g])],
            [
                [to_variable(f, k) for f in incoming[g] for _ in range(count[f] - (f == e))]
                for k in range(size[g])
            ],
        )
    for A in factor_groups:
        a = representative[A]
        table, scope = graph.factors[a].table, colours.scopes[a]  # sorting within blocks
        slot = [slots[A].index(t) for t in colours.slots(a)]  # leaves the table unchanged
        for s in range(len(slots[A])):
            p = slot.index(s)
            for x in itertools.product(*(range(cards[v]) for v in scope)):
                if table[x] == 0:
                    continue
                present = [to_factor((A, slot[q]), x[q]) for q in range(len(scope)) if q != p]
                convert(
                    build,
                    [to_variable((A, s), k) for k in range(cards[scope[p]])],
                    x[p],
                    present,
                    float(table[x]),
                )
    for g in groups:
        recycle(
            build,
            list(belief[g]),
            [
                [to_variable(f, k) for f in incoming[g] for _ in range(count[f])]
                for k in range(size[g])
            ],
        )
    conserved = [belief[g] for g in groups]
    for e in edges:
        k = range(size[into[e]])
        conserved += [tuple(to_factor(e, j) for j in k), tuple(to_variable(e, j) for j in k)]
    return CompiledGraph(
        build.build(), tuple(belief[c] for c in colours.variable), tuple(conserved)
    )
