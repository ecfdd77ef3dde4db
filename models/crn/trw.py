"""Tree-reweighted belief propagation (TRW; Wainwright, Jaakkola & Willsky, IEEE Trans. Inf.
Theory 51:2313, 2005) on a factor graph: a second opinion where exact inference is too wide.

The factor graph is read as a pairwise model on its bipartite graph — factor a a node X_a
over the joint states of its scope, tied to each x_i in its scope by a consistency edge —
and every edge (a, i) gets its appearance probability ρ_ai in a uniformly random spanning
tree of that graph: its effective resistance (Kirchhoff), from the Laplacian's
pseudo-inverse. With n_{i→a} the variable-to-factor message,

    n_{i→a}(x_i) = Π_{b∋i, b≠a} M_{b→i}(x_i)^ρ_bi / M_{a→i}(x_i)^(1−ρ_ai)
    M_{a→i}(x_i) ∝ Σ_{x_a∖i} ψ_a(x_a) Π_{j∈a, j≠i} n_{j→a}(x_j)^ρ_aj / n_{i→a}(x_i)^(1−ρ_ai)
    b_i(x_i)     ∝ Π_{a∋i} M_{a→i}(x_i)^ρ_ai

With every ρ = 1 (a tree: every edge a bridge) this is BP. On a graph with cycles TRW
optimises a convex free energy — one fixed point, reached from any start — whose optimum
bounds log Z from above; its beliefs are a different approximation from BP's, not exact.
Where they and BP disagree, BP (and the Napp–Adams CRN, which rests at BP's fixed point) is
not to be trusted without an exact check. A state that a message rules out (n = 0) gets
M = 0: the belief there is 0 either way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from ...errors import SubstratesError
from .tables import aligned

MAX_NODES = 4000
"""Largest bipartite graph (variables + factors) whose edge weights are computed (a dense
pseudo-inverse)."""


class TooLargeForTRWError(SubstratesError, ValueError):
    """The graph has more nodes than the edge weights are computed for."""


@dataclass
class TRWResult:
    """beliefs per variable; messages[(a, i)] = M_{a→i}; rho[(a, i)]: the edge weights;
    sweeps run; whether the largest message change fell below the tolerance."""

    beliefs: list[np.ndarray]
    messages: dict[tuple[int, int], np.ndarray]
    rho: dict[tuple[int, int], float]
    iterations: int
    converged: bool


def edge_weights(graph: FactorGraph) -> dict[tuple[int, int], float]:
    """ρ_ai for every edge: the probability that (a, i) lies in a uniformly random spanning
    tree of the bipartite variable–factor graph (of its connected component), which equals
    the edge's effective resistance with unit conductances."""
    nodes = graph.variables + len(graph.factors)
    if nodes > MAX_NODES:
        raise TooLargeForTRWError(
            f"TRW's edge weights are computed for at most {MAX_NODES:,} "
            f"variables and factors; the graph has {nodes:,}"
        )
    laplacian = np.zeros((nodes, nodes))
    edges = [(a, i) for i, a in graph.edges()]
    for a, i in edges:
        u, v = i, graph.variables + a
        laplacian[u, u] += 1
        laplacian[v, v] += 1
        laplacian[u, v] -= 1
        laplacian[v, u] -= 1
    inverse = np.linalg.pinv(laplacian, hermitian=True)
    weights = {}
    for a, i in edges:
        u, v = i, graph.variables + a
        resistance = inverse[u, u] + inverse[v, v] - 2 * inverse[u, v]
        weights[(a, i)] = float(np.clip(resistance, 0.0, 1.0))
    return weights


def _normalised(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    if not total > 0:
        raise FloatingPointError("a TRW message vanished (all-zero product of its inputs)")
    return values / total


def tree_reweighted_bp(
    graph: FactorGraph, damping: float = 0.5, tolerance: float = 1e-12, max_iterations: int = 20_000
) -> TRWResult:
    """Run TRW from uniform messages, factor by factor, each new factor→variable message
    mixed with the old one ((1 − d)·new + d·old), until the largest change in a sweep is
    below `tolerance`.

    Example:
        >>> from substrates.testing.crn import loopy_six
        >>> result = tree_reweighted_bp(loopy_six())
        >>> result.converged, round(float(sum(result.beliefs[0])), 12)
        (True, 1.0)
    """
    if not 0 <= damping < 1:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    rho = edge_weights(graph)
    cards = graph.cardinalities
    to_variable = {(a, i): np.full(cards[i], 1.0 / cards[i]) for a, i in rho}

    def incoming(i: int, a: int) -> np.ndarray:
        """n_{i→a}: the other factors' messages to i, over a's own to the power 1 − ρ."""
        out = np.ones(cards[i])
        for b in graph.neighbours(i):
            if b != a:
                out = out * to_variable[(b, i)] ** rho[(b, i)]
        own = to_variable[(a, i)] ** (1 - rho[(a, i)])
        return np.divide(out, own, out=np.zeros_like(out), where=own > 0)

    change, sweeps = np.inf, 0
    while change >= tolerance and sweeps < max_iterations:
        sweeps += 1
        change = 0.0
        for a, factor in enumerate(graph.factors):
            n = {i: incoming(i, a) for i in factor.scope}
            for i in factor.scope:
                product = factor.table
                for j in factor.scope:
                    if j != i:
                        product = product * aligned((j,), n[j] ** rho[(a, j)], factor.scope)
                axes = tuple(k for k, j in enumerate(factor.scope) if j != i)
                summed = product.sum(axis=axes)
                own = n[i] ** (1 - rho[(a, i)])
                fresh = _normalised(
                    np.divide(summed, own, out=np.zeros_like(summed), where=own > 0)
                )
                mixed = (1 - damping) * fresh + damping * to_variable[(a, i)]
                change = max(change, float(np.abs(mixed - to_variable[(a, i)]).max()))
                to_variable[(a, i)] = mixed
    beliefs = []
    for i in range(graph.variables):
        belief = np.ones(cards[i])
        for a in graph.neighbours(i):
            belief = belief * to_variable[(a, i)] ** rho[(a, i)]
        beliefs.append(_normalised(belief))
    return TRWResult(beliefs, to_variable, rho, sweeps, change < tolerance)
