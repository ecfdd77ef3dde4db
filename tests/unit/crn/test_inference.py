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
