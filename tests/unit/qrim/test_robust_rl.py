"""The outer loops: QRIM's robust policies against exhaustive search and the nominal policy."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.models.qrim import (
    ExhaustiveMin,
    QuantumMinimumFinder,
    RobustMDP,
    make_env,
    nominal_policy,
    robust_q_learning,
    robust_value_iteration,
)


def random_robust_mdp(seed: int, states: int = 10, actions: int = 3, members: int = 8):
    rng = np.random.default_rng(seed)
    transitions = rng.dirichlet(np.full(states, 0.5), size=(members, states, actions))
    rewards = np.broadcast_to(
        rng.normal(size=(1, states, actions, states)), transitions.shape
    ).copy()
    return RobustMDP(
        name=f"random{seed}",
        transitions=transitions,
        rewards=rewards,
        gamma=0.9,
        start=0,
        terminal=np.zeros(states, dtype=bool),
    )


def test_policy_equals_exhaustive_in_99_percent_of_states_on_random_mdps() -> None:
    backend = create_backend("quantum.aer")
    agree, total, exact = 0, 0, []
    for seed in range(8):
        mdp = random_robust_mdp(seed)
        qrim = robust_value_iteration(mdp, QuantumMinimumFinder(backend, seed=seed))
        reference = robust_value_iteration(mdp, ExhaustiveMin())
        agree += int(np.sum(qrim.policy == reference.policy))
        total += mdp.num_states
        table = qrim.table()
        exact += list(table["value"].to_numpy() == table["true_min"].to_numpy())
    assert agree / total >= 0.99
    assert np.mean(exact) >= 0.95


@pytest.mark.parametrize(
    ("env", "members"), [("frozenlake4", 16), ("frozenlake8", 8), ("inventory", 16)]
)
def test_robust_policy_worst_case_is_at_least_nominal(env: str, members: int) -> None:
    mdp = make_env(env, members)
    robust = robust_value_iteration(mdp, ExhaustiveMin()).policy
    assert mdp.worst_case_return(robust)[0] >= mdp.worst_case_return(nominal_policy(mdp))[0] - 1e-9


def test_qrim_value_iteration_on_frozenlake_matches_exhaustive() -> None:
    mdp = make_env("frozenlake4", 16)
    qrim = robust_value_iteration(mdp, QuantumMinimumFinder(create_backend("quantum.aer"), seed=0))
    reference = robust_value_iteration(mdp, ExhaustiveMin())
    live = ~mdp.terminal
    assert np.array_equal(qrim.policy[live], reference.policy[live])
    table = qrim.table()
    assert (table["oracle_queries"].to_numpy() > 0).any()
    assert table.num_rows == qrim.iterations * live.sum() * mdp.num_actions


def test_q_learning_with_qrim_reaches_the_robust_worst_case() -> None:
    mdp = make_env("inventory", 8)
    backend = create_backend("quantum.aer")
    learned = robust_q_learning(mdp, QuantumMinimumFinder(backend, seed=1), steps=1500, seed=4)
    best = robust_value_iteration(mdp, ExhaustiveMin()).policy
    assert mdp.worst_case_return(learned.policy)[0] >= 0.95 * mdp.worst_case_return(best)[0]


def test_policy_evaluation_matches_iterative_bellman() -> None:
    mdp = random_robust_mdp(3)
    policy = np.arange(mdp.num_states) % mdp.num_actions
    exact = mdp.policy_values(policy)
    states = np.arange(mdp.num_states)
    values = np.zeros_like(exact)
    for _ in range(400):
        p = mdp.transitions[:, states, policy]
        r = mdp.expected_rewards()[:, states, policy]
        values = r + mdp.gamma * np.einsum("ust,ut->us", p, values)
    assert np.allclose(values, exact, atol=1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("lake", 16, 0.9), "unknown environment"),
        (("frozenlake4", 12, 0.9), "not a power of two"),
        (("frozenlake4", 2048, 0.9), "not a power of two from 2 to 1024"),
        (("inventory", 16, 1.0), "gamma must lie in"),
    ],
)
def test_bad_environment_requests(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_env(*args)


def test_each_member_runs_classically() -> None:
    mdp = make_env("frozenlake4", 8)
    rng = np.random.default_rng(0)
    u, state, action = 5, 6, 2
    draws = [mdp.step(u, state, action, rng) for _ in range(20000)]
    frequencies = np.bincount([d[0] for d in draws], minlength=mdp.num_states) / len(draws)
    assert np.allclose(frequencies, mdp.transitions[u, state, action], atol=0.015)
    assert all(done == bool(mdp.terminal[s]) for s, _, done in draws)
    alone = mdp.member(u)
    assert alone.num_members == 1 and alone.members == (mdp.members[u],)
    policy = robust_value_iteration(alone, ExhaustiveMin()).policy
    assert np.allclose(alone.policy_values(policy)[0], mdp.policy_values(policy)[u])


@pytest.mark.parametrize("seed", range(3))
def test_rectangular_value_is_the_worst_state_wise_adversary_by_brute_force(seed: int) -> None:
    """For a fixed policy the (s, a)-rectangular adversary picks one member per state; its
    value is the minimum over all |U|^S such choices, each evaluated exactly."""
    import itertools

    mdp = random_robust_mdp(seed, states=4, actions=2, members=3)
    policy = np.random.default_rng(seed).integers(2, size=4)
    states = np.arange(4)
    r = mdp.expected_rewards()
    best = np.full(4, np.inf)
    for choice in itertools.product(range(3), repeat=4):
        p = mdp.transitions[list(choice), states, policy]  # (S, S'): row s from member u(s)
        values = np.linalg.solve(np.eye(4) - mdp.gamma * p, r[list(choice), states, policy])
        best = np.minimum(best, values)  # one choice minimizes every state at once
    assert np.allclose(mdp.rectangular_values(policy), best, atol=1e-9)
    assert np.all(mdp.rectangular_values(policy) <= mdp.policy_values(policy).min(axis=0) + 1e-9)


def test_robust_policy_wins_the_rectangular_value_not_always_the_member_wise_one() -> None:
    """What the issue found at |U| = 4: robust value iteration's guarantee is the
    rectangular value; the member-wise worst case can favour the nominal policy."""
    mdp = make_env("frozenlake4", 4)
    robust = robust_value_iteration(mdp, ExhaustiveMin()).policy
    nominal = nominal_policy(mdp)
    for policy in (robust, nominal):
        assert mdp.rectangular_values(policy)[mdp.start] <= mdp.worst_case_return(policy)[0]
    assert mdp.rectangular_values(robust)[mdp.start] >= mdp.rectangular_values(nominal)[mdp.start]
    assert mdp.worst_case_return(robust)[0] < mdp.worst_case_return(nominal)[0]
