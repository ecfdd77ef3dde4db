"""The CRN conformance suite, and small factor graphs with brute-force marginals.

Tree CRNs (Napp–Adams) rest at the exact marginals; trajectories have the asked shape and
conserve every message; networks a backend cannot simulate are refused before compute.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ..backends.crn.base import CRNBackend
from ..datasets.crn.factor_graph import FactorGraph
from ..datasets.crn.files import pgmpy_networks
from ..errors import CapabilityError
from ..models.crn.napp_adams import compile_graph


def loopy_six(seed: int = 0) -> FactorGraph:
    """6 binary variables: a triangle (0,1,2), a leaf 3 on 0, a second loop 1-4-5-2 through
    the degree-2 variable 4; unary factors on 3 and 4 (the reference notes' test graph)."""
    rng = np.random.default_rng(seed)
    pairs = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (4, 5), (5, 2)]
    factors: list[tuple[tuple[int, ...], np.ndarray]] = [
        (pair, np.exp(rng.normal(0, 1, (2, 2)))) for pair in pairs
    ]
    factors += [((v,), np.exp(rng.normal(0, 0.5, 2))) for v in (3, 4)]
    return FactorGraph.build([2] * 6, factors)


def random_tree(variables: int, seed: int, states: int = 3) -> FactorGraph:
    """A random tree of pairwise factors with a unary factor on every variable."""
    rng = np.random.default_rng(seed)
    cards = [int(c) for c in rng.integers(2, states + 1, variables)]
    factors: list[tuple[tuple[int, ...], np.ndarray]] = []
    for child in range(1, variables):
        parent = int(rng.integers(0, child))
        factors.append(((parent, child), rng.gamma(1.0, 1.0, (cards[parent], cards[child]))))
    factors += [((v,), rng.gamma(2.0, 1.0, cards[v])) for v in range(variables)]
    return FactorGraph.build(cards, factors)


PGMPY_EVIDENCE = {
    "alarm": {
        "HRBP": "HIGH",
        "CO": "LOW",
        "BP": "LOW",
        "HISTORY": "TRUE",
        "SAO2": "LOW",
        "PRESS": "HIGH",
    },
    "insurance": {"Accident": "Severe", "MakeModel": "SportsCar", "DrivQuality": "Poor"},
}
"""Observations used with pgmpy's classic networks (six on alarm, three on insurance)."""


def pgmpy_network(name: str) -> Path:
    """The BIF file of a classic Bayesian network as pgmpy's wheel ships it (gzipped), e.g.
    'alarm', 'insurance', 'pathfinder'; skips the test when pgmpy is not installed."""
    pytest.importorskip("pgmpy")
    return pgmpy_networks()[name]


def evidence_indices(graph: FactorGraph, named: dict[str, str]) -> dict[int, int]:
    """{variable index: state index} from {variable name: state name}."""
    out = {}
    for name, state in named.items():
        variable = graph.names.index(name)
        out[variable] = graph.states[variable].index(state)
    return out


def brute_force(graph: FactorGraph) -> list[np.ndarray]:
    """Marginals by summing the normalised joint over every configuration."""
    joint = np.zeros(graph.cardinalities)
    for x in itertools.product(*(range(c) for c in graph.cardinalities)):
        joint[x] = np.prod([f.table[tuple(x[v] for v in f.scope)] for f in graph.factors])
    joint /= joint.sum()
    axes = range(graph.variables)
    return [joint.sum(axis=tuple(a for a in axes if a != i)) for i in axes]


class TestCRNBackend:
    """Every CRN backend: pass a `backend` fixture (a CRNBackend)."""

    def test_tree_crn_rests_at_the_exact_marginals(self, backend: CRNBackend) -> None:
        graph = random_tree(5, seed=11, states=2)
        compiled = compile_graph(graph)
        rest = backend.steady_state(compiled.network, 1e-12)
        tolerance = 0.05 if backend.capabilities.stochastic else 1e-8
        for ours, exact in zip(
            compiled.beliefs(rest.concentrations), brute_force(graph), strict=True
        ):
            assert np.abs(ours - exact).max() < tolerance

    def test_trajectories_have_the_asked_shape_and_conserve_messages(
        self, backend: CRNBackend
    ) -> None:
        compiled = compile_graph(random_tree(4, seed=12, states=2))
        times = np.linspace(0, 3, 4)
        states = backend.simulate(compiled.network, times)
        assert states.shape == (4, len(compiled.network.species))
        assert np.allclose(states[0], compiled.network.initial, atol=1e-3)
        for group in compiled.conserved:
            assert np.allclose(states[:, list(group)].sum(axis=1), 1.0, atol=1e-3)

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"initial": np.zeros(3)}, "initial values"),
            ({"rates": None}, "finite and ≥ 0"),
        ],
    )
    def test_networks_it_cannot_simulate_are_refused_before_compute(
        self, backend: CRNBackend, change: dict, message: str
    ) -> None:
        network = compile_graph(random_tree(3, seed=13, states=2)).network
        if "rates" in change:
            change = {"rates": -network.rates}
        broken = replace(network, **change)
        with pytest.raises(CapabilityError, match=message):
            backend.steady_state(broken)
        with pytest.raises(CapabilityError, match=message):
            backend.simulate(broken, np.array([0.0, 1.0]))

    def test_bad_requests_are_refused_before_compute(self, backend: CRNBackend) -> None:
        network = compile_graph(random_tree(3, seed=14, states=2)).network
        with pytest.raises(CapabilityError, match="strictly increasing"):
            backend.simulate(network, np.array([1.0, 0.5]))
        with pytest.raises(CapabilityError, match="tolerance must be > 0"):
            backend.steady_state(network, tolerance=0.0)

    def test_to_dict_recreates_the_backend(self, backend: CRNBackend) -> None:
        record = backend.to_dict()
        assert type(backend).from_dict(record).to_dict() == record
