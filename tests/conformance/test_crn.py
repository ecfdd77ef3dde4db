"""The CRN interface, the same assertions on every shipped crn config."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.crn.base import CRNBackend
from substrates.models.crn.napp_adams import compile_graph
from tests.unit.crn.graphs import brute_force, random_tree

from .backends import configs_of, shipped_backend

CONFIGS = configs_of("crn")


@pytest.fixture(scope="module", params=CONFIGS)
def simulator(request: pytest.FixtureRequest) -> CRNBackend:
    backend = shipped_backend(request.param)
    assert isinstance(backend, CRNBackend)
    return backend


def test_tree_crn_rests_at_the_exact_marginals(simulator) -> None:
    graph = random_tree(5, seed=11, states=2)
    compiled = compile_graph(graph)
    rest = simulator.steady_state(compiled.network, 1e-12)
    tolerance = 0.05 if simulator.capabilities.stochastic else 1e-8
    for ours, exact in zip(compiled.beliefs(rest.concentrations), brute_force(graph), strict=True):
        assert np.abs(ours - exact).max() < tolerance


def test_trajectories_have_the_asked_shape_and_conserve_messages(simulator) -> None:
    compiled = compile_graph(random_tree(4, seed=12, states=2))
    times = np.linspace(0, 3, 4)
    states = simulator.simulate(compiled.network, times)
    assert states.shape == (4, len(compiled.network.species))
    assert np.allclose(states[0], compiled.network.initial, atol=1e-3)
    for group in compiled.conserved:
        assert np.allclose(states[:, list(group)].sum(axis=1), 1.0, atol=1e-3)
