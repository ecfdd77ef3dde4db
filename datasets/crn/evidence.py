"""Evidence for a Bayesian network that has positive probability: variables observed at
their values in one forward sample of the network."""

from __future__ import annotations

import numpy as np

from .factor_graph import FactorGraph


def forward_sample(graph: FactorGraph, rng: np.random.Generator) -> list[int]:
    """One joint sample of a Bayesian network read from BIF: each factor is a CPD, whose
    child is the axis its table sums to one over; variables drawn parents first."""
    cpd: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}
    for factor in graph.factors:
        for axis, variable in enumerate(factor.scope):
            if np.allclose(factor.table.sum(axis=axis), 1.0, atol=1e-6):
                cpd[variable] = (factor.scope, np.moveaxis(factor.table, axis, -1))
                break
    state: dict[int, int] = {}
    while len(state) < graph.variables:
        for variable, (scope, table) in cpd.items():
            parents = [v for v in scope if v != variable]
            if variable not in state and all(p in state for p in parents):
                row = table[tuple(state[p] for p in parents)]
                state[variable] = int(rng.choice(len(row), p=row / row.sum()))
    return [state[v] for v in range(graph.variables)]


def drawn_evidence(graph: FactorGraph, observed: int, seed: int) -> dict[str, str]:
    """`observed` variables, drawn with `seed`, at their values in one forward sample drawn
    with the same generator: variable name → state name.

        >>> from substrates.datasets.crn.bif import read_bif
        >>> from substrates.datasets.crn.files import graph_path
        >>> sorted(drawn_evidence(read_bif(graph_path("alarm")), 2, 45))
        ['CVP', 'STROKEVOLUME']
    """
    rng = np.random.default_rng(seed)
    sample = forward_sample(graph, rng)
    chosen = sorted(rng.choice(graph.variables, observed, replace=False))
    return {graph.names[v]: graph.states[v][sample[v]] for v in chosen}
