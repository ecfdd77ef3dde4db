"""Elementary rewriting: at most two reactant molecules per reaction, the same steady states
as the catalytic CRN (checked on loopy graphs, a lifted CRN and a real network), and what
it does not cover refused."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.bif import read_bif
from substrates.datasets.crn.generators import ferromagnet
from substrates.datasets.crn.reaction_network import NetworkBuilder
from substrates.models.crn.elementary import elementary, largest_molecularity
from substrates.models.crn.errors import RewriteError
from substrates.models.crn.lifted import compile_lifted
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.reductions import reduce
from substrates.testing.crn import PGMPY_EVIDENCE, evidence_indices, loopy_six, pgmpy_network


def _rests_alike(compiled, rate: float = 1.0) -> float:
    ode = create_backend("crn.ode")
    rewritten = elementary(compiled.network, rate)
    assert largest_molecularity(compiled.network) > 2 >= largest_molecularity(rewritten.network)
    before = compiled.beliefs(ode.steady_state(compiled.network, 1e-13).concentrations)
    after = ode.steady_state(rewritten.network, 1e-13).concentrations
    after = compiled.beliefs(after[: len(compiled.network.species)])
    return max(float(np.abs(a - b).max()) for a, b in zip(before, after, strict=True))


@pytest.mark.parametrize("rate", [0.1, 1.0, 10.0])
def test_the_rewritten_loopy_crn_rests_at_the_same_beliefs_for_any_product_rate(rate) -> None:
    assert _rests_alike(compile_graph(loopy_six()), rate) < 1e-10


def test_a_lifted_crn_with_repeated_catalysts_is_rewritten_exactly() -> None:
    lifted = compile_lifted(reduce(ferromagnet(4, 4, 0.3, 0.2)).graph)
    assert _rests_alike(lifted) < 1e-10


def test_insurances_reduced_crn_rests_at_the_same_beliefs_in_elementary_steps() -> None:
    graph = read_bif(pgmpy_network("insurance"))
    reduced = reduce(graph, evidence=evidence_indices(graph, PGMPY_EVIDENCE["insurance"])).graph
    assert _rests_alike(compile_graph(reduced)) < 1e-10


def test_product_species_are_shared_by_catalyst_set_and_start_at_rest() -> None:
    build = NetworkBuilder()
    a, b, c, x, y = (
        build.species(n, v) for n, v in zip("ABCXY", [0.5, 0.4, 0.2, 1, 0], strict=True)
    )
    build.reaction([a, b, c, x], [a, b, c, y], 2.0)
    build.reaction([c, b, a, y], [c, b, a, x], 1.0)  # same catalysts, other order
    rewritten = elementary(build.build())
    assert rewritten.products == 2  # P[A·B], P[A·B·C]
    network = rewritten.network
    assert np.isclose(network.initial[network.species.index("P[A·B·C]")], 0.5 * 0.4 * 0.2)


def test_a_reaction_that_converts_two_molecules_is_not_rewritten() -> None:
    build = NetworkBuilder()
    a, b, c = (build.species(n, 1.0) for n in "ABC")
    build.reaction([a, a, b], [c], 1.0)
    with pytest.raises(RewriteError, match="converts 3 molecules"):
        elementary(build.build())
