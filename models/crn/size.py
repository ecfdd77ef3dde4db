"""The size of a graph's Napp–Adams CRN, predicted without compiling it (shared/notes/crn.md
§1): with |X_i| states per variable, nnz(ψ_a) the nonzero entries of a factor's table and E
the (variable, factor) edges,

    species   = Σ_(i,a)∈E 2|X_i| + Σ_i |X_i|
    reactions = Σ_(i,a)∈E [|X_i|(|X_i|−1) + nnz(ψ_a)(|X_i|−1)] + Σ_i |X_i|(|X_i|−1)

(zero entries compile to no reaction). Sizes add over factors and variables, so a
reduction prices a move by the factors it removes and adds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph


@dataclass(frozen=True)
class Size:
    """Species and reactions of a CRN (or a change in them)."""

    species: int
    reactions: int

    def __add__(self, other: Size) -> Size:
        return Size(self.species + other.species, self.reactions + other.reactions)

    def __sub__(self, other: Size) -> Size:
        return Size(self.species - other.species, self.reactions - other.reactions)

    @property
    def shrinks(self) -> bool:
        """As a change: fewer reactions, or as many reactions and fewer species."""
        return self.reactions < 0 or (self.reactions == 0 and self.species < 0)


def factor_size(scope: Sequence[int], table: np.ndarray, cards: Sequence[int]) -> Size:
    """What one factor contributes: its edges' message species and reactions."""
    entries = int(np.count_nonzero(table))
    species = sum(2 * cards[i] for i in scope)
    reactions = sum(cards[i] * (cards[i] - 1) + entries * (cards[i] - 1) for i in scope)
    return Size(species, reactions)


def variable_size(states: int) -> Size:
    """What one variable contributes: its belief species and their recycling reactions."""
    return Size(states, states * (states - 1))


def graph_size(graph: FactorGraph) -> Size:
    """The size of `graph`'s Napp–Adams CRN, by the formulas above."""
    total = Size(0, 0)
    for factor in graph.factors:
        total += factor_size(factor.scope, factor.table, graph.cardinalities)
    for states in graph.cardinalities:
        total += variable_size(states)
    return total
