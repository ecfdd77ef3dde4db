"""Napp & Adams (NIPS 2013): sum-product BP compiled into a mass-action CRN whose
equilibria are the BP fixed points.

Construction (as reconstructed in shared/notes/crn.md §1; concentrations are probabilities):
- species M[i>a][k] and M[a>i][k] for every edge (i, a) and state k of x_i (the two
  directed messages), and B[i][k] for every variable's belief;
- every reaction converts one molecule between two components of one message (or belief),
  catalysed by others, so each message's components sum to a conserved T = 1;
- recycling motif: with catalysts whose product is S_k, the reactions
  catalysts + M_j → catalysts + M_k (all j ≠ k) give dM_k/dt = S_k·T − M_k·Σ_j S_j, i.e.
  M_k = S_k / Σ_j S_j at rest:
  variable→factor: catalysts {M[b>i][k] : b ∋ i, b ≠ a}, rate 1;
  factor→variable: for every configuration x_a, catalysts {M[l>a][x_l] : l ∈ a, l ≠ i},
  converting into the component x_i, rate ψ_a(x_a) (zero entries make no reaction);
  belief: catalysts {M[a>i][k] : a ∋ i}, rate 1.
Counts (E edges, |X_a| = Π_{j∈a}|X_j|, positive tables):
  species   S = Σ_{(i,a)∈E} 2|X_i| + Σ_i |X_i|
  reactions R = Σ_{(i,a)∈E} [|X_i|(|X_i|−1) + |X_a|(|X_i|−1)] + Σ_i |X_i|(|X_i|−1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from ...datasets.crn.reaction_network import NetworkBuilder, ReactionNetwork


def to_factor(i: int, a: int, k: int) -> str:
    return f"M[v{i}>f{a}][{k}]"


def to_variable(a: int, i: int, k: int) -> str:
    return f"M[f{a}>v{i}][{k}]"


def belief(i: int, k: int) -> str:
    return f"B[v{i}][{k}]"


@dataclass(frozen=True)
class CompiledGraph:
    """The CRN, where each variable's belief species sit (`belief[i][k]` = index), and the
    species of every conserved message and belief (each sums to 1)."""

    network: ReactionNetwork
    belief: tuple[tuple[int, ...], ...]
    conserved: tuple[tuple[int, ...], ...]

    def conservation_error(self, concentrations: np.ndarray) -> float:
        """max |Σ_k x_k − 1| over messages and beliefs."""
        return max(
            (abs(float(concentrations[list(group)].sum()) - 1.0) for group in self.conserved),
            default=0.0,
        )

    def bp_residual(self, graph: FactorGraph, concentrations: np.ndarray) -> float:
        """max |F(m) − m| of BP's update at the messages these concentrations hold, each
        normalised (the CRN of `graph` compiled by `compile_graph`): 0 where the CRN rests
        at a BP fixed point; inf where a message has vanished (a boundary equilibrium)."""
        from .bp import Messages, residual

        index = {name: k for k, name in enumerate(self.network.species)}
        cards = graph.cardinalities

        def held(names: list[str]) -> np.ndarray:
            values = concentrations[[index[name] for name in names]]
            total = values.sum()  # normalised: a lost conserved sum is judged apart
            return values / total if total > 0 else np.full(len(values), np.nan)

        m = Messages(
            {(i, a): held([to_factor(i, a, k) for k in range(cards[i])]) for i, a in graph.edges()},
            {
                (a, i): held([to_variable(a, i, k) for k in range(cards[i])])
                for i, a in graph.edges()
            },
        )
        with np.errstate(all="raise", under="ignore"):  # tiny products are no vanishing
            try:
                value = residual(graph, m)
            except FloatingPointError:
                return float("inf")
        return value if np.isfinite(value) else float("inf")

    def beliefs(self, concentrations: np.ndarray) -> list[np.ndarray]:
        """Belief of every variable from a concentration vector, normalised."""
        out = []
        for rows in self.belief:
            values = concentrations[list(rows)]
            out.append(values / values.sum())
        return out


def compile_graph(graph: FactorGraph) -> CompiledGraph:
    """The Napp–Adams CRN of `graph`, every message and belief starting uniform (T = 1)."""
    build = NetworkBuilder()
    cards = graph.cardinalities
    edges = graph.edges()
    for i, a in edges:
        for k in range(cards[i]):
            build.species(to_factor(i, a, k), 1.0 / cards[i])
            build.species(to_variable(a, i, k), 1.0 / cards[i])
    beliefs = tuple(
        tuple(build.species(belief(i, k), 1.0 / cards[i]) for k in range(cards[i]))
        for i in range(graph.variables)
    )
    s = build.index

    for i, a in edges:
        others = [b for b in graph.neighbours(i) if b != a]
        recycle(
            build,
            [s[to_factor(i, a, k)] for k in range(cards[i])],
            [[s[to_variable(b, i, k)] for b in others] for k in range(cards[i])],
        )
    for a, factor in enumerate(graph.factors):
        for position, i in enumerate(factor.scope):
            target = [s[to_variable(a, i, k)] for k in range(cards[i])]
            for x in itertools.product(*(range(cards[v]) for v in factor.scope)):
                value = float(factor.table[x])
                if value == 0:
                    continue
                present = [
                    s[to_factor(other, a, x[p])]
                    for p, other in enumerate(factor.scope)
                    if other != i
                ]
                convert(build, target, x[position], present, value)
    for i in range(graph.variables):
        recycle(
            build,
            list(beliefs[i]),
            [[s[to_variable(a, i, k)] for a in graph.neighbours(i)] for k in range(cards[i])],
        )
    conserved = list(beliefs)
    for i, a in edges:
        conserved.append(tuple(s[to_factor(i, a, k)] for k in range(cards[i])))
        conserved.append(tuple(s[to_variable(a, i, k)] for k in range(cards[i])))
    return CompiledGraph(build.build(), beliefs, tuple(conserved))


def convert(
    build: NetworkBuilder, target: list[int], k: int, catalysts: list[int], rate: float
) -> None:
    """catalysts + target[j] → catalysts + target[k] for all j ≠ k, at `rate`."""
    for j in range(len(target)):
        if j != k:
            build.reaction([*catalysts, target[j]], [*catalysts, target[k]], rate)


def recycle(build: NetworkBuilder, target: list[int], catalysts: list[list[int]]) -> None:
    """The recycling motif: catalysts[k] + target[j] → catalysts[k] + target[k], rate 1."""
    for k, present in enumerate(catalysts):
        convert(build, target, k, present, 1.0)
