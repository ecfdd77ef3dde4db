"""Tree-reweighted BP against independent references: edge weights by enumerating every
spanning tree (networkx), the fixed point against the convex TRW free energy's optimality
conditions on the local polytope, the upper bound on log Z, and exactness on trees."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import null_space

from substrates.datasets.crn.factor_graph import FactorGraph
from substrates.models.crn.exact import log_partition, marginals
from substrates.models.crn.tables import aligned
from substrates.models.crn.trw import (
    TooLargeForTRWError,
    edge_weights,
    tree_reweighted_bp,
)
from substrates.testing.crn import loopy_six, random_tree


def test_edge_weights_are_spanning_tree_frequencies_counted_one_tree_at_a_time() -> None:
    nx = pytest.importorskip("networkx")
    graph = loopy_six(0)
    bipartite = nx.Graph()
    bipartite.add_edges_from((("v", i), ("f", a)) for i, a in graph.edges())
    trees = list(nx.SpanningTreeIterator(bipartite))
    counted = {
        (a, i): sum(tree.has_edge(("v", i), ("f", a)) for tree in trees) / len(trees)
        for i, a in graph.edges()
    }
    weights = edge_weights(graph)
    assert weights.keys() == counted.keys()
    assert max(abs(weights[e] - counted[e]) for e in counted) < 1e-12
    assert weights[(7, 3)] == pytest.approx(1.0)  # a unary factor's edge is a bridge


def test_on_a_tree_trw_is_exact() -> None:
    graph = random_tree(9, seed=4)
    result = tree_reweighted_bp(graph)
    assert result.converged and all(r == pytest.approx(1.0) for r in result.rho.values())
    exact = marginals(graph)
    assert max(np.abs(b - e).max() for b, e in zip(result.beliefs, exact, strict=True)) < 1e-10


def _free_energy_gradient(
    graph: FactorGraph, taus: list[np.ndarray], rho: dict[tuple[int, int], float]
) -> tuple[float, np.ndarray]:
    """F(τ) = Σ_a [⟨log ψ_a, τ_a⟩ + H(τ_a)] + Σ_i (1 − Σ_a ρ_ai) H(τ_i) — the TRW objective of
    the bipartite pairwise model (I(X_a; x_i) = H(τ_i) on a consistency edge) — and its
    gradient in the factor beliefs τ_a (τ_i read from i's first factor)."""
    value, gradient = 0.0, []
    for factor, tau in zip(graph.factors, taus, strict=True):
        value += float((tau * np.log(factor.table)).sum() - (tau * np.log(tau)).sum())
        gradient.append(np.log(factor.table) - np.log(tau) - 1)
    for i in range(graph.variables):
        a = graph.neighbours(i)[0]
        scope = graph.factors[a].scope
        axes = tuple(k for k, j in enumerate(scope) if j != i)
        tau_i = taus[a].sum(axis=axes)
        weight = 1 - sum(rho[(b, i)] for b in graph.neighbours(i))
        value -= weight * float((tau_i * np.log(tau_i)).sum())
        gradient[a] = gradient[a] + weight * aligned((i,), -np.log(tau_i) - 1, scope)
    return value, np.concatenate([g.ravel() for g in gradient])


def _constraints(graph: FactorGraph) -> np.ndarray:
    """The local polytope's equalities on the stacked factor beliefs: each sums to one;
    every two factors of a variable agree on its marginal."""
    sizes = [f.table.size for f in graph.factors]
    offsets = np.cumsum([0, *sizes])
    rows = []
    for a in range(len(graph.factors)):
        row = np.zeros(offsets[-1])
        row[offsets[a] : offsets[a + 1]] = 1
        rows.append(row)

    def marginal_rows(a: int, i: int) -> np.ndarray:
        factor = graph.factors[a]
        k = factor.scope.index(i)
        states = np.indices(factor.table.shape)[k].ravel()
        out = np.zeros((graph.cardinalities[i], offsets[-1]))
        out[states, offsets[a] + np.arange(factor.table.size)] = 1
        return out

    for i in range(graph.variables):
        first, *others = graph.neighbours(i)
        rows += [*(marginal_rows(first, i) - marginal_rows(b, i) for b in others)]
    return np.vstack([np.atleast_2d(r) for r in rows])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fixed_point_maximises_the_trw_free_energy_and_bounds_log_z(seed) -> None:
    """At the fixed point the factor beliefs lie in the local polytope and the free energy's
    gradient is orthogonal to it (stationary; the objective is concave for spanning-tree
    weights, so this is its maximum), and that maximum bounds log Z from above."""
    graph = loopy_six(seed)
    result = tree_reweighted_bp(graph, tolerance=1e-14)
    assert result.converged
    rho, messages = result.rho, result.messages

    def to_factor(i: int, a: int) -> np.ndarray:
        out = np.ones(graph.cardinalities[i])
        for b in graph.neighbours(i):
            if b != a:
                out = out * messages[(b, i)] ** rho[(b, i)]
        return out / messages[(a, i)] ** (1 - rho[(a, i)])

    taus = []
    for a, factor in enumerate(graph.factors):
        tau = factor.table.copy()
        for j in factor.scope:
            tau = tau * aligned((j,), to_factor(j, a) ** rho[(a, j)], factor.scope)
        taus.append(tau / tau.sum())
    stacked = np.concatenate([t.ravel() for t in taus])
    polytope = _constraints(graph)
    target = np.zeros(len(polytope))
    target[: len(taus)] = 1  # sums to one; differences of marginals zero
    assert np.abs(polytope @ stacked - target).max() < 1e-10
    value, gradient = _free_energy_gradient(graph, taus, rho)
    directions = null_space(polytope)
    assert np.abs(directions.T @ gradient).max() < 1e-8
    assert value >= log_partition(graph) - 1e-12
    for k, tau_i in enumerate(result.beliefs):  # the variable beliefs are τ's marginals
        a = graph.neighbours(k)[0]
        axes = tuple(n for n, j in enumerate(graph.factors[a].scope) if j != k)
        assert np.allclose(taus[a].sum(axis=axes), tau_i, atol=1e-10)


def test_a_graph_too_large_for_the_edge_weights_is_refused(monkeypatch) -> None:
    from substrates.models.crn import trw

    monkeypatch.setattr(trw, "MAX_NODES", 10)
    with pytest.raises(TooLargeForTRWError, match="at most 10 variables and factors"):
        tree_reweighted_bp(loopy_six())


def test_a_validation_too_wide_for_exact_sets_bp_beside_trw(monkeypatch) -> None:
    from substrates.backends.registry import create_backend
    from substrates.models.crn import validate

    monkeypatch.setattr(validate, "EXACT_LIMIT", 1)  # loopy_six is then "too wide"
    result = validate.validate_reduction(
        loopy_six(2), create_backend("crn.ode"), moves=(), keep=range(6)
    )
    assert result.beliefs["exact"] is None
    assert "trw vs exact" not in result.differences
    assert 1e-4 < result.differences["bp vs trw"] < 0.5  # loopy: two different answers
    assert result.differences["crn_original vs bp"] < 1e-8
