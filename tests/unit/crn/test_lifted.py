"""Lifted compression: colour passing against explicit symmetry orbits, lifted CRN sizes
against the formulas on the lifted graph, and its rest point against BP and exact
marginals of the original graph."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.factor_graph import FactorGraph
from substrates.datasets.crn.generators import ferromagnet
from substrates.models.crn.bp import belief_propagation
from substrates.models.crn.lifted import colour_passing, compile_lifted
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.size import graph_size
from substrates.testing.crn import brute_force, loopy_six, random_tree


def square_orbits(rows: int) -> list[set[int]]:
    """Orbits of the cells of a rows × rows grid under the 8 symmetries of the square."""
    maps = [lambda r, c: (r, c), lambda r, c: (c, r)]
    maps += [lambda r, c, m=m: m(rows - 1 - r, c) for m in maps[:2]]
    maps += [lambda r, c, m=m: m(r, rows - 1 - c) for m in maps[:4]]
    orbits: dict[frozenset, set[int]] = {}
    for r in range(rows):
        for c in range(rows):
            orbit = frozenset(m(r, c)[0] * rows + m(r, c)[1] for m in maps)
            orbits[orbit] = set(orbit)
    return list(orbits.values())


def partition(labels: tuple[int, ...]) -> set[frozenset[int]]:
    return {frozenset(i for i, x in enumerate(labels) if x == g) for g in set(labels)}


@pytest.fixture(scope="module")
def ode():
    return create_backend("crn.ode")


def lifted_beliefs(graph: FactorGraph, ode) -> list[np.ndarray]:
    compiled = compile_lifted(graph)
    return compiled.beliefs(ode.steady_state(compiled.network, 1e-13).concentrations)


def test_a_uniform_grid_folds_onto_the_orbits_of_the_square(ode) -> None:
    graph = ferromagnet(6, 6, 0.3, 0.2)
    colours = colour_passing(graph)
    assert partition(colours.variable) == {frozenset(o) for o in square_orbits(6)}
    compiled = compile_lifted(graph)
    original = compile_graph(graph).network
    assert compiled.network.reactions * 7 < original.reactions
    bp = belief_propagation(graph, damping=0.5, tolerance=1e-14, max_iterations=20_000)
    for ours, theirs in zip(lifted_beliefs(graph, ode), bp.beliefs, strict=True):
        assert np.abs(ours - theirs).max() < 1e-8


def test_lifted_sizes_follow_the_formulas_on_the_lifted_graph() -> None:
    """A star: five interchangeable leaves give the centre catalysts of stoichiometry 5."""
    table = np.array([[2.0, 0.5, 1.0], [0.3, 1.0, 4.0]])
    graph = FactorGraph.build([3] + [2] * 5, [((0, leaf), table.T) for leaf in range(1, 6)])
    colours = colour_passing(graph)
    assert colours.groups == (2, 1)
    network = compile_lifted(graph, colours).network
    # lifted graph: supervariables centre (3 states), leaf (2); one superfactor, two slots
    species = 2 * 3 + 2 * 2 + 3 + 2
    reactions = (3 * 2 + 6 * 2) + (2 * 1 + 6 * 1) + 3 * 2 + 2 * 1
    assert (len(network.species), network.reactions) == (species, reactions)
    assert network.reactant_coefficients.max() == 5


@pytest.mark.parametrize("graph", [random_tree(8, seed=1), loopy_six(0)], ids=["tree", "loopy"])
def test_without_symmetry_the_lifted_crn_is_the_plain_one(graph) -> None:
    assert colour_passing(graph).groups == (graph.variables, len(graph.factors))
    network = compile_lifted(graph).network
    assert (len(network.species), network.reactions) == astuple(graph_size(graph))


def test_star_and_ring_rest_at_exact_and_bp_marginals(ode) -> None:
    table = np.array([[2.0, 0.5, 1.0], [0.3, 1.0, 4.0]])
    star = FactorGraph.build(
        [3] + [2] * 5, [((0, leaf), table.T) for leaf in range(1, 6)] + [((0,), np.ones(3))]
    )
    for ours, exact in zip(lifted_beliefs(star, ode), brute_force(star), strict=True):
        assert np.abs(ours - exact).max() < 1e-8
    coupling = np.array([[3.0, 1.0], [1.0, 2.0]])
    ring = FactorGraph.build([2] * 9, [((i, (i + 1) % 9), coupling) for i in range(9)])
    assert colour_passing(ring).groups == (1, 1)
    bp = belief_propagation(ring, damping=0.5, tolerance=1e-14, max_iterations=20_000)
    for ours, theirs in zip(lifted_beliefs(ring, ode), bp.beliefs, strict=True):
        assert np.abs(ours - theirs).max() < 1e-8
