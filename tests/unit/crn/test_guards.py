"""What a validation refuses or declines before compiling: sizes predicted exactly, moves
that would enlarge the CRN, CRNs beyond the budget, impossible evidence, reductions that
leave nothing to compare."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.bif import read_bif
from substrates.datasets.crn.factor_graph import FactorGraph
from substrates.datasets.crn.generators import hmm
from substrates.models.crn.errors import (
    ImpossibleEvidenceError,
    NothingToCompareError,
    SizeBudgetError,
)
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.reductions import reduce, with_evidence
from substrates.models.crn.size import graph_size
from substrates.models.crn.validate import validate_reduction
from substrates.testing.crn import PGMPY_EVIDENCE, evidence_indices, pgmpy_network, random_tree


def _compiled_size(graph: FactorGraph) -> tuple[int, int]:
    network = compile_graph(graph).network
    return len(network.species), network.reactions


@pytest.mark.parametrize("name", ["insurance", "alarm", "child"])
def test_predicted_sizes_equal_the_compiled_ones_before_and_after_reduction(name) -> None:
    graph = read_bif(pgmpy_network(name))
    evidence = evidence_indices(graph, PGMPY_EVIDENCE.get(name, {}))
    original = with_evidence(graph, evidence)
    assert astuple(graph_size(original)) == _compiled_size(original)
    reduction = reduce(graph, evidence=evidence)
    assert astuple(graph_size(reduction.graph)) == _compiled_size(reduction.graph)
    last = reduction.steps[-1]
    assert (last.species, last.reactions) == _compiled_size(reduction.graph)
    assert astuple(reduction.start) == _compiled_size(original)


def _bottleneck() -> FactorGraph:
    """x (10 states) – y (2 states) – z (10 states): eliminating y builds a 10 × 10 table."""
    rng = np.random.default_rng(0)
    return FactorGraph.build(
        [10, 2, 10],
        [((0, 1), rng.uniform(0.1, 1, (10, 2))), ((1, 2), rng.uniform(0.1, 1, (2, 10)))],
    )


def test_a_move_that_would_enlarge_the_crn_is_declined_unless_growth_is_allowed() -> None:
    graph = _bottleneck()
    priced = reduce(graph, keep=[0, 2])
    assert priced.survivors == (0, 1, 2) and priced.declined == {"degree2": 1}
    grown = reduce(graph, keep=[0, 2], allow_growth=True)
    assert grown.survivors == (0, 2) and grown.applied["degree2"] == 1
    assert grown.steps[-1].reactions > grown.start.reactions == priced.start.reactions
    assert _compiled_size(grown.graph)[1] > _compiled_size(graph)[1]


def test_insurance_with_three_observations_reduces_to_a_smaller_crn() -> None:
    graph = read_bif(pgmpy_network("insurance"))
    evidence = evidence_indices(graph, PGMPY_EVIDENCE["insurance"])
    reduction = reduce(graph, evidence=evidence)
    sizes = [step.reactions for step in reduction.steps]
    assert all(
        after < before
        for before, after in zip([reduction.start.reactions, *sizes], sizes, strict=False)
    )
    assert sizes[-1] < reduction.start.reactions / 2
    assert reduction.declined.get("degree2", 0) > 0  # moves that would have grown it


def test_a_crn_beyond_the_budget_is_refused_with_its_predicted_size() -> None:
    big = FactorGraph.build([3000, 3000], [((0, 1), np.ones((3000, 3000)))])
    edges = 2 * (3000 * 2999 + 3000**2 * 2999)  # each variable's edge to the factor
    beliefs = 2 * 3000 * 2999
    with pytest.raises(SizeBudgetError, match=f"{edges + beliefs:,} reactions .* 1,000,000"):
        validate_reduction(big, create_backend("crn.ode"))


def test_pathfinder_is_refused_by_the_default_budget_before_compiling() -> None:
    graph = read_bif(pgmpy_network("pathfinder"))
    with pytest.raises(SizeBudgetError, match="original CRN would have 4,206,684 reactions"):
        validate_reduction(graph, create_backend("crn.ode"))


def _deterministic_chain() -> FactorGraph:
    """a → b → c, each copying its parent exactly."""
    copy = np.eye(2)
    return FactorGraph.build(
        [2, 2, 2], [((0,), np.array([0.5, 0.5])), ((0, 1), copy), ((1, 2), copy)], ["a", "b", "c"]
    )


def test_evidence_of_probability_zero_is_named_not_a_vanished_message() -> None:
    with pytest.raises(ImpossibleEvidenceError, match="a = 0, c = 1 has probability zero"):
        validate_reduction(_deterministic_chain(), create_backend("crn.ode"), evidence={0: 0, 2: 1})


def test_the_reduction_names_evidence_a_factor_rules_out() -> None:
    with pytest.raises(ImpossibleEvidenceError, match="b = 1 has probability zero"):
        reduce(_deterministic_chain(), evidence={0: 0, 1: 1})


def test_without_keep_one_variable_per_component_survives() -> None:
    model, _ = hmm(12, 3, 3, seed=0)
    assert len(reduce(model).survivors) == 1
    first, second = random_tree(6, seed=1), random_tree(5, seed=2)
    forest = FactorGraph.build(
        first.cardinalities + second.cardinalities,
        [(f.scope, f.table) for f in first.factors]
        + [(tuple(v + 6 for v in f.scope), f.table) for f in second.factors],
    )
    survivors = reduce(forest).survivors
    assert len(survivors) == 2 and survivors[0] < 6 <= survivors[1]


def test_a_validation_with_every_variable_observed_compares_nothing_and_says_so() -> None:
    graph = _deterministic_chain()
    with pytest.raises(NothingToCompareError, match="every variable is observed"):
        validate_reduction(graph, create_backend("crn.ode"), evidence={0: 0, 1: 0, 2: 0})
