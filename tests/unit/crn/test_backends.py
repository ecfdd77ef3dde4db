"""The CRN backends against each other: SSA within its statistical error of the ODE."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.reaction_network import NetworkBuilder, ReactionNetwork
from substrates.models.crn.napp_adams import compile_graph
from substrates.testing.crn import loopy_six, random_tree


def test_ssa_steady_state_is_within_statistical_error_of_the_ode() -> None:
    compiled = compile_graph(loopy_six())
    ode = compiled.beliefs(create_backend("crn.ode").steady_state(compiled.network).concentrations)
    runs = []
    for seed in range(4):
        ssa = create_backend("crn.ssa", {"volume": 1000, "seed": seed, "average": 200})
        runs.append(compiled.beliefs(ssa.steady_state(compiled.network).concentrations))
    for variable, reference in enumerate(ode):
        samples = np.array([run[variable] for run in runs])
        error = samples.std(axis=0, ddof=1) / np.sqrt(len(runs))
        assert (np.abs(samples.mean(axis=0) - reference) < 6 * error + 2e-3).all()
        assert (error < 0.02).all()


def test_ssa_trajectories_conserve_every_message_exactly() -> None:
    compiled = compile_graph(random_tree(5, seed=3, states=2))
    ssa = create_backend("crn.ssa", {"volume": 500, "seed": 1})
    states = ssa.simulate(compiled.network, np.linspace(0, 20, 11))
    for group in compiled.conserved:
        totals = states[:, list(group)].sum(axis=1)
        assert np.allclose(totals, totals[0]) and abs(totals[0] - 1) < 0.01


def test_ssa_is_reproducible_by_seed() -> None:
    network = compile_graph(random_tree(4, seed=1)).network
    first, second = (
        create_backend("crn.ssa", {"seed": 7}).simulate(network, np.array([0.0, 5.0, 10.0]))
        for _ in range(2)
    )
    assert np.array_equal(first, second)


def _random_initial(compiled, rows: int, seed: int) -> np.ndarray:
    """Random states where every message and belief sums to 1."""
    rng = np.random.default_rng(seed)
    x = np.empty((rows, len(compiled.network.species)))
    for group in compiled.conserved:
        x[:, list(group)] = rng.dirichlet(np.ones(len(group)), rows)
    return x


def test_torch_jacobian_equals_the_numba_one() -> None:
    import torch

    from substrates.backends.crn.mass_action import MassAction
    from substrates.backends.crn.torch_batched import MassActionTorch

    compiled = compile_graph(loopy_six())
    x = _random_initial(compiled, 3, seed=0)
    ours = MassActionTorch(compiled.network, torch.float64, "cpu").jacobian(torch.as_tensor(x))
    reference = MassAction(compiled.network)
    for row in range(3):
        assert np.allclose(ours[row].numpy(), reference.jacobian(x[row]).toarray(), atol=1e-13)


def test_torch_batch_of_initial_conditions_and_rates_equals_the_ode_row_by_row() -> None:
    from dataclasses import replace

    compiled = compile_graph(loopy_six())
    network = compiled.network
    torch_backend, ode = create_backend("crn.torch"), create_backend("crn.ode")
    initial = _random_initial(compiled, 4, seed=1)
    rates = network.rates * np.random.default_rng(2).uniform(0.5, 2.0, (4, 1))
    batch = torch_backend.steady_states(network, initial, rates, tolerance=1e-13)
    for row in range(4):
        single = replace(network, initial=initial[row], rates=rates[row])
        reference = ode.steady_state(single, 1e-13).concentrations
        assert np.allclose(batch[row], reference, atol=1e-9)


def test_torch_trajectories_equal_the_ode() -> None:
    compiled = compile_graph(random_tree(5, seed=2))
    times = np.linspace(0, 5, 6)
    ours = create_backend("crn.torch").simulate(compiled.network, times)
    reference = create_backend("crn.ode").simulate(compiled.network, times)
    assert np.allclose(ours, reference, atol=1e-7)


def _birth_death(volume_rate: float) -> ReactionNetwork:
    """∅ → A at rate `volume_rate` (concentration per unit time), A → ∅ at rate 1."""
    build = NetworkBuilder()
    a = build.species("A", 0.0)
    build.reaction([], [a], volume_rate)
    build.reaction([a], [], 1.0)
    return build.build()


@pytest.mark.parametrize("method", ["direct", "tau_leap"])
def test_ssa_birth_death_counts_are_poisson(method) -> None:
    """Stationary counts of ∅ → A → ∅ are Poisson(k V / γ): mean and variance 100."""
    ssa = create_backend("crn.ssa", {"volume": 10, "seed": 3, "method": method, "epsilon": 0.03})
    times = np.arange(0.0, 3000.0, 1.5)  # samples ~1.5 correlation times apart
    counts = ssa.simulate(_birth_death(10.0), times)[200:, 0] * 10
    assert abs(counts.mean() - 100) < 4 * np.sqrt(100 / len(counts) * 2)
    assert 0.85 < counts.var() / 100 < 1.15


def test_the_dependency_graph_lists_exactly_the_reactions_a_firing_affects() -> None:
    from substrates.backends.crn.gillespie import dependencies, net_changes

    rng = np.random.default_rng(5)
    build = NetworkBuilder()
    species = [build.species(f"s{i}", 1.0) for i in range(12)]
    for _ in range(60):
        reactants = list(rng.choice(species, rng.integers(0, 4)))  # repeats: homodimers
        catalysts = list(rng.choice(species, rng.integers(0, 2)))
        products = list(rng.choice(species, rng.integers(0, 3)))
        build.reaction(reactants + catalysts, products + catalysts, 1.0)
    network = build.build()
    sides = [
        (network.reactant_offsets, network.reactant_species, network.reactant_coefficients),
        (network.product_offsets, network.product_species, network.product_coefficients),
    ]
    net = net_changes(sides[0], sides[1], len(species))
    offsets, listed = dependencies(sides[0], net, len(species))
    change = network.net_stoichiometry().toarray()
    n_off, n_sp, n_ch = net
    for r in range(network.reactions):
        listed_change = dict(
            zip(n_sp[n_off[r] : n_off[r + 1]], n_ch[n_off[r] : n_off[r + 1]], strict=True)
        )
        assert listed_change == {s: change[s, r] for s in np.flatnonzero(change[:, r])}
    for r in range(network.reactions):
        changed = set(np.flatnonzero(change[:, r]))
        reads = {
            q
            for q in range(network.reactions)
            if changed
            & set(
                network.reactant_species[
                    network.reactant_offsets[q] : network.reactant_offsets[q + 1]
                ]
            )
        }
        assert sorted(listed[offsets[r] : offsets[r + 1]]) == sorted(reads)


def test_tau_leaping_rests_within_statistical_error_of_the_ode() -> None:
    compiled = compile_graph(loopy_six())
    ode = compiled.beliefs(create_backend("crn.ode").steady_state(compiled.network).concentrations)
    ssa = create_backend(
        "crn.ssa", {"volume": 20000, "seed": 0, "average": 200, "method": "tau_leap"}
    )
    leaped = compiled.beliefs(ssa.steady_state(compiled.network).concentrations)
    assert max(float(np.abs(a - b).max()) for a, b in zip(ode, leaped, strict=True)) < 0.01


NEURON_THEN_ROADRUNNER = """
{first}
from substrates.backends.registry import create_backend
from substrates.testing.crn import random_tree
from substrates.models.crn.napp_adams import compile_graph
network = compile_graph(random_tree(4, seed=1)).network
create_backend("crn.roadrunner").steady_state(network)
print("simulated")
"""


@pytest.mark.parametrize(
    "first",
    ["import neuron", "import neuron\nimport roadrunner", "import roadrunner\nimport neuron"],
    ids=["neuron first", "neuron, then roadrunner", "roadrunner, then neuron"],
)
def test_roadrunner_simulates_in_a_process_that_loaded_neuron(first) -> None:
    """libRoadRunner segfaults building a model in a process that loaded NEURON first; the
    backend runs it in a process of its own, so any import order works. A fresh process
    each: the import order is under test."""
    pytest.importorskip("roadrunner")
    pytest.importorskip("neuron")
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", NEURON_THEN_ROADRUNNER.format(first=first)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "simulated" in result.stdout


def test_a_crash_of_libroadrunners_process_is_an_error_and_the_next_call_recovers() -> None:
    """The process ending under a request (here killed, as a segfault would end it) is one
    RoadRunnerError naming the signal, not the end of the caller's process; the next call
    starts a new process and compiles the model again."""
    pytest.importorskip("roadrunner")
    import signal

    from substrates.backends.crn.roadrunner import RoadRunnerError

    network = compile_graph(random_tree(4, seed=1)).network
    runner = create_backend("crn.roadrunner")
    before = runner.steady_state(network, 1e-12).concentrations
    runner._process.process.send_signal(signal.SIGSEGV)
    runner._process.process.wait()
    with pytest.raises(RoadRunnerError, match=r"process ended \(signal 11\) during 'prepare'"):
        runner.steady_state(network, 1e-12)
    assert np.allclose(runner.steady_state(network, 1e-12).concentrations, before, atol=1e-12)
    assert runner.loads == 2


def test_roadrunner_compiles_a_network_once_for_its_steady_state_and_trajectories() -> None:
    """The trajectory after a steady state runs on the model the steady state compiled (with
    conserved moieties), not on a second load; both agree with crn.ode."""
    pytest.importorskip("roadrunner")
    network = compile_graph(random_tree(4, seed=1)).network
    runner, ode = create_backend("crn.roadrunner"), create_backend("crn.ode")
    rest = runner.steady_state(network, 1e-12).concentrations
    times = np.array([0.0, 0.5, 2.0])
    path = runner.simulate(network, times)
    assert runner.loads == 1
    assert np.allclose(path, ode.simulate(network, times), atol=1e-7)
    assert np.allclose(rest, ode.steady_state(network, 1e-12).concentrations, atol=1e-8)


def test_a_conserved_pair_sharing_hundreds_of_reactions_keeps_its_law() -> None:
    """A ⇄ B catalysed by each of 128 species: A and B share 256 reactions (counted in int8
    that wrapped to 0, split the pair, lost the law A + B = const, and hepar2's CRN rested
    with a message summing to 1.47); the law is found and the steady state keeps it, at
    the closed form's point."""
    from substrates.backends.crn.mass_action import MassAction
    from substrates.backends.crn.steady import conservation

    build = NetworkBuilder()
    a, b = build.species("A", 0.7), build.species("B", 0.3)
    for k in range(128):
        catalyst = build.species(f"C{k}", 1.0)
        build.reaction([a, catalyst], [b, catalyst], 1.0 + k % 3)
        build.reaction([b, catalyst], [a, catalyst], 2.0)
    network = build.build()
    laws = conservation(MassAction(network).stoichiometry).laws.toarray()
    pair = [row for row in laws if row[a] or row[b]]
    assert len(pair) == 1 and np.count_nonzero(pair[0]) == 2
    assert pair[0][b] == pytest.approx(pair[0][a], rel=1e-12)  # A + B
    rest = create_backend("crn.ode").steady_state(network, 1e-12).concentrations
    forward = sum(1.0 + k % 3 for k in range(128))  # A → B at this total rate, B → A at 256
    assert rest[a] + rest[b] == pytest.approx(1.0, abs=1e-12)
    assert rest[b] == pytest.approx(forward / (forward + 256.0), abs=1e-9)


def test_a_slow_mode_below_the_residual_tolerance_is_followed_to_its_rest() -> None:
    """A ⇄ B catalysed by the product of fifteen species at 0.09 (as a Napp–Adams message
    of a variable with fifteen factors, hailfinder's Scenario): rates ~1e-16, below any
    residual tolerance at the uniform start, which was taken for the rest (hailfinder's CRN
    then sat 0.48 from BP). Newton's step measures the distance left: the rest is found,
    B / A = 1 / 3 from the rates."""
    build = NetworkBuilder()
    a, b = build.species("A", 0.5), build.species("B", 0.5)
    catalysts = [build.species(f"C{k}", 0.09) for k in range(15)]
    build.reaction([a, *catalysts], [b, *catalysts], 1.0)
    build.reaction([b, *catalysts], [a, *catalysts], 3.0)
    network = build.build()
    rest = create_backend("crn.ode").steady_state(network, 1e-13).concentrations
    assert rest[b] == pytest.approx(0.25, abs=1e-9) and rest[a] == pytest.approx(0.75, abs=1e-9)


def test_a_continuation_that_gives_up_reports_where_it_stalled() -> None:
    """Stopped early, the continuation returns its best point, that point's residual and
    Newton's step from it (the distance to the rest it estimates): crn.ode compares
    distance / residual with max_time to tell a slow mode it need not integrate."""
    from substrates.backends.crn.mass_action import MassAction
    from substrates.backends.crn.steady import Rest, Stall, steady_state

    network = compile_graph(loopy_six()).network
    model = MassAction(network)
    start = np.asarray(network.initial, dtype=float)
    stall = steady_state(model, start, 1e-13, max_steps=2)
    assert isinstance(stall, Stall)
    assert stall.residual == pytest.approx(np.abs(model.derivative(stall.x)).max(), rel=1e-12)
    assert stall.distance is not None and stall.distance > 0
    assert stall.time_left == pytest.approx(stall.distance / stall.residual)
    rest = steady_state(model, start, 1e-13)
    assert isinstance(rest, Rest) and rest.verified
    assert np.abs(rest.x - stall.x).max() > 0  # it had not arrived


def test_a_tolerance_below_round_off_ends_at_once_naming_it() -> None:
    """Asked for max |dx/dt| < 1e-30, the continuation sits at the rest with a round-off
    residual: it gives up creeping at its longest step (not after its 2,000 steps), and
    crn.ode says the rest is there to round-off rather than integrating to max_time."""
    from substrates.backends.crn.base import NoSteadyStateError
    from substrates.backends.crn.mass_action import MassAction
    from substrates.backends.crn.steady import REST_STEP, Stall, steady_state

    network = compile_graph(loopy_six()).network
    stall = steady_state(MassAction(network), np.asarray(network.initial, dtype=float), 1e-30)
    assert isinstance(stall, Stall) and stall.creeping
    assert stall.distance is not None and stall.distance <= REST_STEP
    with pytest.raises(NoSteadyStateError, match="round-off at the rest; loosen the tolerance"):
        create_backend("crn.ode").steady_state(network, 1e-30)


def test_a_continuation_creeping_far_from_any_rest_is_no_steady_state() -> None:
    """Where the continuation crept at its longest step and Newton's system is singular
    (no distance to a rest: munin's CRN), crn.ode ends with that reason instead of
    integrating 763,597 reactions to max_time."""
    from substrates.backends.crn.base import NoSteadyStateError
    from substrates.backends.crn.steady import Stall

    crept = Stall(np.full(4, 0.25), residual=6e-7, distance=None, time=1e14, creeping=True)
    with pytest.raises(NoSteadyStateError, match=r"creeps at its longest step \(max \|dx/dt\| = 6"):
        create_backend("crn.ode")._explain(crept, 1e-13)
