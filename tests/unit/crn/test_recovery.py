"""Recovering factor graphs from Napp–Adams CRNs with shuffled, renamed species: the graph
that was compiled is the reference (same factors up to variable, state and axis order)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.factor_graph import FactorGraph
from substrates.datasets.crn.files import example_path as example_graph
from substrates.datasets.crn.reaction_network import NetworkBuilder, ReactionNetwork
from substrates.datasets.crn.uai import read_uai
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.recovery import RecoveryError, recover
from substrates.models.crn.reductions import reduce, with_evidence
from substrates.testing.crn import loopy_six, random_tree


def rebuild(
    network: ReactionNetwork, new_index: np.ndarray, reactions, rates, names
) -> ReactionNetwork:
    """The network with species old → new_index[old] named names[new], and `reactions` (in
    that order) at `rates`."""
    build = NetworkBuilder()
    old_of = np.argsort(new_index)
    for new in range(len(new_index)):
        build.species(names[new], float(network.initial[old_of[new]]))
    for r in reactions:
        sides = []
        for offsets, species, counts in (
            (network.reactant_offsets, network.reactant_species, network.reactant_coefficients),
            (network.product_offsets, network.product_species, network.product_coefficients),
        ):
            members = range(offsets[r], offsets[r + 1])
            sides.append([int(new_index[species[m]]) for m in members for _ in range(counts[m])])
        build.reaction(sides[0], sides[1], float(rates[r]))
    return build.build()


def shuffled(network: ReactionNetwork, seed: int) -> tuple[ReactionNetwork, np.ndarray]:
    """Species and reactions in random order, species named s0, s1, …; also new_index[old]."""
    rng = np.random.default_rng(seed)
    new_index = rng.permutation(len(network.species))
    names = [f"s{i}" for i in range(len(new_index))]
    order = rng.permutation(network.reactions)
    return rebuild(network, new_index, order, network.rates, names), new_index


def edited(network: ReactionNetwork, rates=None, drop: int | None = None) -> ReactionNetwork:
    """The same network at other rates, or without reaction `drop`."""
    kept = [r for r in range(network.reactions) if r != drop]
    rates = network.rates if rates is None else rates
    return rebuild(network, np.arange(len(network.species)), kept, rates, network.species)


def canonical(graph: FactorGraph, states: list[list[int]], variables: list[int]) -> list:
    """Factors as (sorted scope in reference numbering, table in reference state order),
    sorted: `variables[v]` and `states[v][k]` map this graph's variable v, state k."""
    out = []
    for factor in graph.factors:
        scope = [variables[v] for v in factor.scope]
        table = factor.table
        for axis, v in enumerate(factor.scope):
            table = np.take(table, np.argsort(states[v]), axis=axis)
        order = np.argsort(scope)
        out.append((tuple(sorted(scope)), np.transpose(table, order)))
    return sorted(out, key=lambda item: (item[0], tuple(item[1].ravel())))


def correspondence(compiled, recovered, new_index) -> tuple[list[int], list[list[int]]]:
    """variables[v], states[v][k]: the compiled graph's variable and state that recovered
    variable v, state k stands for (read off the belief species)."""
    where = {
        int(new_index[s]): (i, k)
        for i, row in enumerate(compiled.belief)
        for k, s in enumerate(row)
    }
    variables = [where[row[0]][0] for row in recovered.compiled.belief]
    states = [[where[s][1] for s in row] for row in recovered.compiled.belief]
    return variables, states


def assert_recovers(graph: FactorGraph, seed: int = 0) -> None:
    compiled = compile_graph(graph)
    network, new_index = shuffled(compiled.network, seed)
    recovered = recover(network)
    variables, states = correspondence(compiled, recovered, new_index)
    assert sorted(variables) == list(range(graph.variables))
    ours = canonical(recovered.graph, states, variables)
    reference = canonical(
        graph, [list(range(c)) for c in graph.cardinalities], list(range(graph.variables))
    )
    assert [scope for scope, _ in ours] == [scope for scope, _ in reference]
    for (_, mine), (_, theirs) in zip(ours, reference, strict=True):
        assert np.allclose(mine, theirs, rtol=1e-12, atol=0)
    again = compile_graph(recovered.graph).network
    assert (len(again.species), again.reactions) == (len(network.species), network.reactions)


@pytest.mark.parametrize(
    "graph",
    [
        loopy_six(0),
        random_tree(9, seed=1),
        random_tree(6, seed=4, states=4),
        read_uai(example_graph()),
        with_evidence(read_uai(example_graph()), {6: 1, 7: 0}),
    ],
    ids=["loopy", "tree", "tree-4-states", "asia", "asia-evidence"],
)
def test_the_compiled_graph_is_recovered_up_to_order(graph) -> None:
    assert_recovers(graph, seed=3)


def test_leaf_messages_are_labelled_by_their_factors_tables() -> None:
    rng = np.random.default_rng(7)
    factors = [
        ((0, 1), rng.gamma(1, 1, (2, 3))),
        ((2, 3), rng.gamma(1, 1, (3, 2))),
        ((4, 5), rng.gamma(1, 1, (3, 3))),
        ((5,), rng.gamma(1, 1, 3)),
        ((6,), rng.gamma(1, 1, 2)),
        ((1, 7, 8), rng.gamma(1, 1, (3, 2, 2))),
    ]
    graph = FactorGraph.build([2, 3, 3, 2, 3, 3, 2, 2, 2], factors)
    for seed in range(4):
        assert_recovers(graph, seed)


def test_a_variable_in_no_factor_keeps_its_belief() -> None:
    graph = FactorGraph.build([2, 3, 2], [((0, 2), np.array([[1.0, 2.0], [3.0, 0.5]]))])
    assert_recovers(graph, seed=1)


def test_the_recovered_crn_rests_where_the_given_one_does() -> None:
    graph = loopy_six(2)
    network, _ = shuffled(compile_graph(graph).network, seed=5)
    recovered = recover(network)
    ode = create_backend("crn.ode")
    given = recovered.compiled.beliefs(ode.steady_state(network, 1e-12).concentrations)
    again = compile_graph(recovered.graph)
    rebuilt = again.beliefs(ode.steady_state(again.network, 1e-12).concentrations)
    for a, b in zip(given, rebuilt, strict=True):
        assert np.abs(a - b).max() < 1e-8


def test_chemical_route_equals_the_graph_route() -> None:
    """recover → reduce → recompile gives the CRN, and the rest point, that reducing the
    graph gives; the observed variables' indicator factors are found as evidence."""
    graph = with_evidence(read_uai(example_graph()), {6: 1, 7: 1})
    compiled = compile_graph(graph)
    network, new_index = shuffled(compiled.network, seed=2)
    recovered = recover(network)
    variables, states = correspondence(compiled, recovered, new_index)
    chemical = reduce(recovered.graph, keep=[v for v, i in enumerate(variables) if i in (1, 3)])
    direct = reduce(graph, keep=[1, 3])
    assert chemical.applied["evidence"] == direct.applied["evidence"] == 2
    ode = create_backend("crn.ode")
    rest = {}
    for label, reduction in (("chemical", chemical), ("direct", direct)):
        crn = compile_graph(reduction.graph)
        beliefs = crn.beliefs(ode.steady_state(crn.network, 1e-12).concentrations)
        rest[label] = (len(crn.network.species), crn.network.reactions, beliefs)
    assert rest["chemical"][:2] == rest["direct"][:2]
    for position, v in enumerate(chemical.survivors):
        original = np.empty_like(rest["chemical"][2][position])
        original[states[v]] = rest["chemical"][2][position]
        expected = rest["direct"][2][direct.survivors.index(variables[v])]
        assert np.abs(original - expected).max() < 1e-9


def test_crns_that_are_not_napp_adams_are_refused_with_the_reason() -> None:
    network = compile_graph(loopy_six(0)).network
    build = NetworkBuilder()
    a, b, c = (build.species(name, 1.0) for name in "ABC")
    build.reaction([a, b], [c], 1.0)
    with pytest.raises(RecoveryError, match=r"reaction 0 \(A \+ B → C\): not a catalysed"):
        recover(build.build())
    with pytest.raises(
        RecoveryError, match=re.escape("no conversion reaches component 'M[v1>f1][1]'")
    ):
        recover(edited(network, drop=5))
    three = compile_graph(FactorGraph.build([3, 3], [((0, 1), np.ones((3, 3)))])).network
    with pytest.raises(
        RecoveryError,
        match=re.escape(
            "reaction 0 (M[v0>f0][2] → M[v0>f0][0]): no matching conversion from 'M[v0>f0][1]'"
        ),
    ):
        recover(edited(three, drop=0))
    rates = network.rates.copy()
    rates[0] *= 2
    with pytest.raises(RecoveryError, match=r"recycling rates differ \(1 to 2\)"):
        recover(edited(network, rates))
    rates = three.rates.copy()
    rates[0] *= 2
    with pytest.raises(RecoveryError, match=r"reaction 1 \(.*\): rate 1 differs from 2"):
        recover(edited(three, rates))
    # one configuration of one factor→variable message read at another scale
    target = network.species.index("M[f0>v0][1]")
    chosen = [
        r
        for r in range(network.reactions)
        if target
        in network.product_species[network.product_offsets[r] : network.product_offsets[r + 1]]
        and "M[v1>f0][0]"
        in {
            network.species[s]
            for s in network.reactant_species[
                network.reactant_offsets[r] : network.reactant_offsets[r + 1]
            ]
        }
    ]
    rates = network.rates.copy()
    rates[chosen] *= 3
    with pytest.raises(RecoveryError, match="read different tables"):
        recover(edited(network, rates))
