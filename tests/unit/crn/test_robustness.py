"""The checks beyond equal beliefs against what they measure: the relaxation time against
the exact two-state rate and a trajectory's decay, rate noise that grows with its level,
several fixed points found where BP has several, SSA noise that shrinks with volume."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.generators import ferromagnet
from substrates.datasets.crn.reaction_network import NetworkBuilder
from substrates.models.crn.napp_adams import CompiledGraph, compile_graph
from substrates.models.crn.robustness import basins, noise, rate_sensitivity, relaxation_time
from substrates.testing.crn import random_tree


def test_relaxation_time_of_a_two_state_exchange_is_one_over_the_rate_sum() -> None:
    build = NetworkBuilder()
    a, b = build.species("A", 1.0), build.species("B", 0.0)
    build.reaction([a], [b], 0.3)
    build.reaction([b], [a], 0.2)
    compiled = CompiledGraph(build.build(), ((a, b),), ((a, b),))
    assert np.isclose(relaxation_time(compiled, np.array([0.4, 0.6])), 1 / 0.5)


def test_a_trees_distance_to_rest_falls_by_e_every_relaxation_time() -> None:
    compiled = compile_graph(random_tree(5, seed=4, states=2))
    ode = create_backend("crn.ode")
    rest = ode.steady_state(compiled.network, 1e-14).concentrations
    tau = relaxation_time(compiled, rest)
    times = np.array([0.0, 6 * tau, 7 * tau])  # late enough for the slowest mode alone
    states = ode.simulate(compiled.network, times)
    far, near = (np.abs(states[k] - rest).max() for k in (1, 2))
    assert 2.4 < far / near < 3.1  # e ≈ 2.72


def test_rate_noise_moves_beliefs_more_at_higher_levels_and_not_at_all_without_noise() -> None:
    compiled = compile_graph(random_tree(6, seed=2))
    rows, names = [0, 3], ["0", "3"]
    shifts = rate_sensitivity(
        compiled,
        rows,
        names,
        create_backend("crn.ode"),
        [1e-12, 0.1, 0.5],
        samples=4,
        seed=0,
        tolerance=1e-12,
    )
    by_level = {
        level: max(r["max_shift"] for r in shifts if r["level"] == level)
        for level in (1e-12, 0.1, 0.5)
    }
    assert by_level[1e-12] < 1e-9 < by_level[0.1] < by_level[0.5]
    torch = rate_sensitivity(
        compiled,
        rows,
        names,
        create_backend("crn.torch"),
        [1e-12, 0.1, 0.5],
        samples=4,
        seed=0,
        tolerance=1e-12,
    )
    assert np.allclose([r["max_shift"] for r in torch], [r["max_shift"] for r in shifts], atol=1e-8)


def test_a_strongly_coupled_grid_shows_several_fixed_points_and_a_tree_one() -> None:
    grid = compile_graph(ferromagnet(3, 3, 1.5, 0.0))
    found = basins(grid, [0, 4], create_backend("crn.torch"), starts=12, seed=0, tolerance=1e-11)
    assert found["fixed_points"] >= 2 and found["largest_distance"] > 0.1
    tree = compile_graph(random_tree(6, seed=1))
    assert (
        basins(tree, [0], create_backend("crn.ode"), starts=6, seed=0, tolerance=1e-13)[
            "fixed_points"
        ]
        == 1
    )


def test_ssa_noise_shrinks_with_volume() -> None:
    compiled = compile_graph(random_tree(3, seed=5, states=2))
    rest = create_backend("crn.ode").steady_state(compiled.network, 1e-14).concentrations
    deterministic = np.concatenate(compiled.beliefs(rest))

    def ssa(volume: float, seed: int):
        return create_backend("crn.ssa", {"volume": volume, "seed": seed, "average": 100})

    small, large = noise(compiled, [0, 1, 2], deterministic, [50, 5000], seeds=4, stochastic=ssa)
    assert large["spread"] < small["spread"] / 3
    assert large["bias"] < 0.02


def test_perturbed_networks_are_new_networks_not_the_original() -> None:
    network = compile_graph(random_tree(3, seed=5)).network
    changed = replace(network, rates=network.rates * 2)
    assert np.array_equal(network.rates * 2, changed.rates) and changed is not network


def test_each_fixed_point_is_reported_with_its_basin_evidence() -> None:
    """A ferromagnet without field is symmetric under flipping every spin, so the fixed
    points the random starts find come in mirror pairs (the uniform start rests at the
    symmetric one): each is listed with how many starts reached it and its distance from
    the uniform start's, and every successful start is counted once."""
    grid = compile_graph(ferromagnet(3, 3, 1.5, 0.0))
    found = basins(grid, [0, 4], create_backend("crn.torch"), starts=12, seed=0, tolerance=1e-11)
    points = found["points"]
    assert len(points) == found["fixed_points"] >= 3
    assert sum(p["reached_from"] for p in points) == 12 - found["failed"]
    assert points[0]["distance_from_uniform"] == 0.0
    assert np.allclose(points[0]["beliefs"], 0.5, atol=1e-8)  # the symmetric point
    magnetised = [np.array(p["beliefs"]) for p in points[1:]]
    for beliefs in magnetised:
        flipped = beliefs.reshape(2, 2)[:, ::-1].ravel()
        assert any(np.allclose(flipped, other, atol=1e-6) for other in magnetised)
    assert max(p["distance_from_uniform"] for p in points) == pytest.approx(
        found["largest_distance"], abs=1e-6
    )


def test_the_report_lists_each_fixed_point_with_its_basin() -> None:
    """Several fixed points: a line each under the count, the uniform start's first; one
    fixed point: the count alone."""
    from substrates.adapters.methods.crn_validate import _diagnosis

    points = [
        {"reached_from": 1, "distance_from_uniform": 0.0, "beliefs": [0.5, 0.5]},
        {"reached_from": 7, "distance_from_uniform": 0.497, "beliefs": [0.997, 0.003]},
    ]
    several = {"starts": 8, "fixed_points": 2, "points": points}
    one = {"starts": 8, "fixed_points": 1, "points": points[:1]}
    summary = {
        "differences": {},
        "robustness": {"crn_original": {"basins": several}, "crn_reduced": {"basins": one}},
    }
    lines = _diagnosis(summary)
    assert lines[0] == (
        "fixed points reached from uniform and 8 random starts: 2 (crn_original), 1 (crn_reduced)"
    )
    assert lines[1:] == [
        "  crn_original fixed point 1 (the uniform start’s): reached from 1 of 8 random "
        "starts, 0.00e+00 from the uniform start’s",
        "  crn_original fixed point 2: reached from 7 of 8 random starts, 4.97e-01 from the "
        "uniform start’s",
    ]
