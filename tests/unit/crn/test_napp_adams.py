"""The Napp–Adams CRN: its size formulas, its Jacobian, and its equilibria against BP."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.models.crn.bp import belief_propagation
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.size import graph_size
from substrates.testing.crn import brute_force, loopy_six, random_tree


def test_sizes_follow_the_formulas_and_the_notes_count() -> None:
    graph = loopy_six()
    compiled = compile_graph(graph)
    assert (len(compiled.network.species), compiled.network.reactions) == (76, 104)
    for other in (random_tree(8, seed=1), random_tree(5, seed=2, states=4)):
        network = compile_graph(other).network
        assert (len(network.species), network.reactions) == astuple(graph_size(other))


def _messages(network) -> list[list[int]]:
    """Species indices of each message and belief (names differ only in the last [k])."""
    groups: dict[str, list[int]] = {}
    for index, name in enumerate(network.species):
        groups.setdefault(name.rsplit("[", 1)[0], []).append(index)
    return list(groups.values())


def test_every_message_and_belief_is_conserved() -> None:
    compiled = compile_graph(random_tree(6, seed=5))
    stoichiometry = compiled.network.net_stoichiometry().toarray()
    for rows in _messages(compiled.network):
        assert np.allclose(stoichiometry[rows].sum(axis=0), 0)


def test_jacobian_matches_finite_differences() -> None:
    from substrates.backends.crn.mass_action import MassAction

    network = compile_graph(loopy_six()).network
    model = MassAction(network)
    x = np.random.default_rng(0).uniform(0.1, 1.0, len(network.species))
    analytic = model.jacobian(x).toarray()
    step = 1e-6
    numeric = np.stack(
        [
            (model.derivative(x + step * e) - model.derivative(x - step * e)) / (2 * step)
            for e in np.eye(len(x))
        ],
        axis=1,
    )
    assert np.allclose(analytic, numeric, atol=1e-7)


@pytest.fixture(scope="module")
def ode():
    return create_backend("crn.ode")


def test_tree_equilibrium_is_the_exact_marginals(ode) -> None:
    graph = random_tree(7, seed=6)
    compiled = compile_graph(graph)
    rest = ode.steady_state(compiled.network, tolerance=1e-13)
    for ours, exact in zip(compiled.beliefs(rest.concentrations), brute_force(graph), strict=True):
        assert np.allclose(ours, exact, atol=1e-8)


def test_loopy_equilibrium_is_the_bp_fixed_point(ode) -> None:
    graph = loopy_six()
    compiled = compile_graph(graph)
    rest = ode.steady_state(compiled.network, tolerance=1e-13)
    bp = belief_propagation(graph, damping=0.5, tolerance=1e-14)
    for ours, reference in zip(compiled.beliefs(rest.concentrations), bp.beliefs, strict=True):
        assert np.allclose(ours, reference, atol=1e-8)
    totals = [rest.concentrations[rows].sum() for rows in _messages(compiled.network)]
    assert np.allclose(totals, 1.0, atol=1e-10)


def test_the_rest_point_holds_bp_fixed_point_messages_and_a_vanished_message_does_not() -> None:
    """At the CRN's rest the messages satisfy BP's equations (residual ~0, by BP's own
    update, models/crn/bp.py); a message state driven to zero, as on a boundary
    equilibrium, breaks them."""
    from substrates.backends.registry import create_backend
    from substrates.models.crn.napp_adams import to_variable

    graph = loopy_six()
    compiled = compile_graph(graph)
    x = create_backend("crn.ode").steady_state(compiled.network, 1e-13).concentrations
    assert compiled.bp_residual(graph, x) < 1e-10
    i, a = graph.edges()[0]
    index = {name: k for k, name in enumerate(compiled.network.species)}
    broken = x.copy()
    broken[index[to_variable(a, i, 0)]] = 0.0
    broken[index[to_variable(a, i, 1)]] = 1.0
    assert compiled.bp_residual(graph, broken) > 1e-3
