"""Small factor graphs shared by the CRN tests, and brute-force marginals."""

from __future__ import annotations

import itertools

import numpy as np

from substrates.datasets.crn.factor_graph import FactorGraph


def loopy_six(seed: int = 0) -> FactorGraph:
    """6 binary variables: a triangle (0,1,2), a leaf 3 on 0, a second loop 1-4-5-2 through
    the degree-2 variable 4; unary factors on 3 and 4 (the reference notes' test graph)."""
    rng = np.random.default_rng(seed)
    pairs = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 4), (4, 5), (5, 2)]
    factors = [(pair, np.exp(rng.normal(0, 1, (2, 2)))) for pair in pairs]
    factors += [((v,), np.exp(rng.normal(0, 0.5, 2))) for v in (3, 4)]
    return FactorGraph.build([2] * 6, factors)


def random_tree(variables: int, seed: int, states: int = 3) -> FactorGraph:
    """A random tree of pairwise factors with a unary factor on every variable."""
    rng = np.random.default_rng(seed)
    cards = rng.integers(2, states + 1, variables)
    factors = []
    for child in range(1, variables):
        parent = int(rng.integers(0, child))
        factors.append(((parent, child), rng.gamma(1.0, 1.0, (cards[parent], cards[child]))))
    factors += [((v,), rng.gamma(2.0, 1.0, cards[v])) for v in range(variables)]
    return FactorGraph.build(cards, factors)


def brute_force(graph: FactorGraph) -> list[np.ndarray]:
    """Marginals by summing the normalised joint over every configuration."""
    joint = np.zeros(graph.cardinalities)
    for x in itertools.product(*(range(c) for c in graph.cardinalities)):
        joint[x] = np.prod([f.table[tuple(x[v] for v in f.scope)] for f in graph.factors])
    joint /= joint.sum()
    axes = range(graph.variables)
    return [joint.sum(axis=tuple(a for a in axes if a != i)) for i in axes]
