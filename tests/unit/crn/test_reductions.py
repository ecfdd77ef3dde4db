"""Reductions keep BP (and so the CRN's equilibria) on surviving variables; what is not exact
is not offered."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.factor_graph import FactorGraph
from substrates.models.crn.bp import belief_propagation
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.reductions import reduce, with_evidence
from substrates.testing.crn import brute_force, loopy_six, random_tree


def _bp(graph: FactorGraph) -> list[np.ndarray]:
    result = belief_propagation(graph, damping=0.5, tolerance=1e-14)
    assert result.converged
    return result.beliefs


def test_the_notes_reductions_shrink_the_crn_to_52_species_and_72_reactions() -> None:
    graph = loopy_six()
    reduction = reduce(graph, moves=("leaves", "degree2"), keep=[0, 1, 2, 5])
    assert reduction.survivors == (0, 1, 2, 5)
    assert reduction.applied == {"leaves": 1, "degree2": 1}
    network = compile_graph(reduction.graph).network
    assert (len(network.species), network.reactions) == (52, 72)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bp_on_survivors_is_unchanged_by_every_move(seed) -> None:
    graph = loopy_six(seed)
    reduction = reduce(graph, keep=[1])
    assert reduction.survivors == (1, 2)  # to a fixed point: 3, then 0, 4 and 5 go
    before = _bp(graph)
    for new, old in enumerate(reduction.survivors):
        assert np.allclose(_bp(reduction.graph)[new], before[old], atol=1e-10)


def test_a_tree_folds_to_one_variable_with_its_exact_marginal() -> None:
    graph = random_tree(8, seed=2)
    reduction = reduce(graph, keep=[3])
    assert reduction.survivors == (3,)
    (marginal,) = _bp(reduction.graph)
    assert np.allclose(marginal, brute_force(graph)[3], atol=1e-12)


def test_evidence_matches_the_graph_with_indicator_factors() -> None:
    graph = loopy_six()
    evidence = {4: 1, 3: 0}
    reduction = reduce(graph, moves=("evidence",), evidence=evidence)
    assert reduction.survivors == (0, 1, 2, 5)
    clamped = _bp(with_evidence(graph, evidence))
    for new, old in enumerate(reduction.survivors):
        assert np.allclose(_bp(reduction.graph)[new], clamped[old], atol=1e-10)


def test_reduced_crn_rests_where_the_original_does() -> None:
    ode = create_backend("crn.ode")
    graph = loopy_six()
    reduction = reduce(graph, keep=[1])
    original, reduced = compile_graph(graph), compile_graph(reduction.graph)
    full = original.beliefs(ode.steady_state(original.network, 1e-13).concentrations)
    small = reduced.beliefs(ode.steady_state(reduced.network, 1e-13).concentrations)
    for new, old in enumerate(reduction.survivors):
        assert np.allclose(small[new], full[old], atol=1e-8)
    assert reduced.network.reactions < original.network.reactions / 2


def test_parallel_factors_are_not_merged() -> None:
    rng = np.random.default_rng(0)
    graph = FactorGraph.build(
        [2, 2],
        [
            ((0, 1), rng.uniform(0.5, 2, (2, 2))),
            ((0, 1), rng.uniform(0.5, 2, (2, 2))),
            ((0,), rng.uniform(0.5, 2, 2)),
        ],
    )
    reduction = reduce(graph, moves=("unary", "degree2"))
    assert len(reduction.graph.factors) == 3 and reduction.survivors == (0, 1)


def test_bad_requests_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown reductions"):
        reduce(loopy_six(), moves=("lumping",))
    with pytest.raises(ValueError, match=r"states are 0\.\.1"):
        reduce(loopy_six(), evidence={0: 2})
