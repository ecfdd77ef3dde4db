"""BP and variable elimination against brute-force enumeration."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.models.crn.bp import belief_propagation, residual
from substrates.models.crn.exact import marginals
from substrates.testing.crn import brute_force, loopy_six, random_tree


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_variable_elimination_equals_brute_force(seed) -> None:
    for graph in (loopy_six(seed), random_tree(7, seed)):
        for ours, reference in zip(marginals(graph), brute_force(graph), strict=True):
            assert np.allclose(ours, reference, atol=1e-12)


@pytest.mark.parametrize("schedule", ["sequential", "parallel"])
def test_bp_on_a_tree_gives_the_exact_marginals(schedule) -> None:
    graph = random_tree(9, seed=4)
    result = belief_propagation(graph, schedule=schedule, tolerance=1e-14)
    assert result.converged and result.residual < 1e-12
    for ours, reference in zip(result.beliefs, brute_force(graph), strict=True):
        assert np.allclose(ours, reference, atol=1e-10)


def test_loopy_bp_reaches_one_fixed_point_whatever_the_damping_or_schedule() -> None:
    graph = loopy_six()
    runs = [
        belief_propagation(graph, damping=d, schedule=s, tolerance=1e-13)
        for d, s in ((0.0, "sequential"), (0.5, "sequential"), (0.5, "parallel"))
    ]
    assert all(r.converged and r.residual < 1e-11 for r in runs)
    for other in runs[1:]:
        for a, b in zip(runs[0].beliefs, other.beliefs, strict=True):
            assert np.allclose(a, b, atol=1e-10)
    exact = brute_force(graph)
    gap = max(np.abs(a - b).max() for a, b in zip(runs[0].beliefs, exact, strict=True))
    assert 1e-4 < gap < 0.05  # loopy BP is an approximation here, a close one


def test_residual_is_zero_only_at_a_fixed_point() -> None:
    graph = loopy_six()
    result = belief_propagation(graph, max_iterations=1)
    assert not result.converged and residual(graph, result.messages) > 1e-6


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="damping"):
        belief_propagation(loopy_six(), damping=1.0)
    with pytest.raises(ValueError, match="schedule"):
        belief_propagation(loopy_six(), schedule="random")


def test_marginals_of_chosen_variables_are_those_of_the_whole() -> None:
    graph = loopy_six(1)
    every = marginals(graph)
    chosen = marginals(graph, variables=[4, 0])
    assert np.allclose(chosen[0], every[4]) and np.allclose(chosen[1], every[0])


def test_a_graph_too_wide_is_refused_from_its_interaction_graph_alone() -> None:
    """A 12 × 12 Ising grid has treewidth 12: min-fill elimination needs a table over 13
    variables. The order is found on the interaction graph, so the refusal names that
    table before any is built; the same order eliminates a wide-enough budget exactly."""
    from substrates.datasets.crn.generators import ising_grid
    from substrates.models.crn.exact import TooWideError, elimination_order

    grid = ising_grid(12, 12, 0.5, 0.3, 0)
    with pytest.raises(TooWideError, match=r"a table over 1[3-9] variables"):
        elimination_order(grid, None, max_width=12, max_entries=10**12)
    order = elimination_order(grid, 5, max_width=20, max_entries=10**12)
    assert sorted(order) == [v for v in range(144) if v != 5]
    small = ising_grid(3, 4, 0.5, 0.3, 1)
    for ours, reference in zip(marginals(small), brute_force(small), strict=True):
        assert np.allclose(ours, reference, atol=1e-12)
