"""Robust Q-learning from samples: parallel agents, a generative model per member.

Each step every agent picks an ε-greedy action and draws one next state from every member u
(a generative-model call each). The sample r_u + γ max_a' Q(s'_u, a') updates a running
estimate T[s, a, u] of E_u[r + γ max Q]; Q(s, a) becomes the inner minimum over u of T[s, a].
(The minimum of single samples would be biased low; the running estimates are not.) Agents
then move by the nominal member's draw.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .inner import InnerMinimizer
from .mdp import RobustMDP
from .solution import RobustSolution


def robust_q_learning(
    mdp: RobustMDP,
    minimizer: InnerMinimizer,
    steps: int = 2000,
    agents: int = 16,
    epsilon: float = 0.3,
    episode_length: int = 100,
    seed: int | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> RobustSolution:
    """Learn robust Q-values; learning rate 1/(1 + visits)^0.6 per (s, a)."""
    rng = np.random.default_rng(seed)
    q = np.zeros((mdp.num_states, mdp.num_actions))
    visits = np.zeros_like(q)
    estimates = np.zeros((mdp.num_states, mdp.num_actions, mdp.num_members))
    cumulative = np.cumsum(mdp.transitions, axis=-1)  # (U, S, A, S)
    states = np.full(agents, mdp.start)
    ages = np.zeros(agents, dtype=np.int64)
    solution = RobustSolution(policy=np.zeros(mdp.num_states, dtype=np.int64), q=q, iterations=0)
    members = np.arange(mdp.num_members)
    for step in range(1, steps + 1):
        greedy = np.argmax(q[states] + 1e-9 * rng.random(q[states].shape), axis=1)
        explore = rng.random(agents) < epsilon
        actions = np.where(explore, rng.integers(mdp.num_actions, size=agents), greedy)
        draws = rng.random((agents, mdp.num_members, 1))
        rows = cumulative[members[None, :], states[:, None], actions[:, None]]  # (agents, U, S)
        next_states = np.minimum((rows < draws).sum(axis=-1), mdp.num_states - 1)
        rewards = mdp.rewards[members[None, :], states[:, None], actions[:, None], next_states]
        future = np.where(mdp.terminal[next_states], 0.0, q[next_states].max(axis=-1))
        samples = rewards + mdp.gamma * future  # (agents, U)
        for agent in range(agents):
            s, a = states[agent], actions[agent]
            visits[s, a] += 1
            rate = 1 / (1 + visits[s, a]) ** 0.6
            estimates[s, a] += rate * (samples[agent] - estimates[s, a])
        tables = [estimates[s, a].copy() for s, a in zip(states, actions, strict=True)]
        results = minimizer.argmin_many(tables)
        pairs = list(zip(states.tolist(), actions.tolist(), strict=True))
        solution.record(step, pairs, tables, results)
        change = 0.0
        for (s, a), result in zip(pairs, results, strict=True):
            change = max(change, abs(result.value - q[s, a]))
            q[s, a] = result.value
        states = next_states[:, mdp.nominal]
        ages += 1
        done = mdp.terminal[states] | (ages >= episode_length)
        states = np.where(done, mdp.start, states)
        ages = np.where(done, 0, ages)
        solution.iterations = step
        if progress is not None:
            progress(step, change)
    solution.policy = np.argmax(q, axis=1)
    return solution
