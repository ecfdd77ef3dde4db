"""Robust tabular MDPs: one state/action space, an uncertainty set U of transition models."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np


@dataclass(frozen=True)
class RobustMDP:
    """A finite MDP whose dynamics are one of |U| models.

    transitions: P[u, s, a, s'] (each P[u, s, a] sums to 1).
    rewards: r[u, s, a, s'], the reward of the transition s -a-> s' under model u.
    gamma: discount in (0, 1). start: the start state. terminal: absorbing states, value 0.
    nominal: the member a non-robust user would plan for.
    """

    name: str
    transitions: np.ndarray
    rewards: np.ndarray
    gamma: float
    start: int
    terminal: np.ndarray
    nominal: int = 0
    members: tuple[str, ...] = ()
    state_labels: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        _, s, _, s2 = self.transitions.shape
        if s != s2 or self.rewards.shape != self.transitions.shape:
            raise ValueError("transitions and rewards must both be (U, S, A, S)")
        if not np.allclose(self.transitions.sum(axis=-1), 1.0, atol=1e-9):
            raise ValueError("each transition row must sum to 1")
        if not 0 < self.gamma < 1:
            raise ValueError(f"gamma must lie in (0, 1), got {self.gamma}")

    @property
    def num_members(self) -> int:
        return self.transitions.shape[0]

    @property
    def num_states(self) -> int:
        return self.transitions.shape[1]

    @property
    def num_actions(self) -> int:
        return self.transitions.shape[2]

    def expected_rewards(self) -> np.ndarray:
        """E[r | u, s, a] = Σ_s' P[u,s,a,s'] r[u,s,a,s'], shape (U, S, A)."""
        return np.einsum("usat,usat->usa", self.transitions, self.rewards)

    def backup_tables(self, values: np.ndarray) -> np.ndarray:
        """T[s, a, u] = E_u[r + γ V(s')]: what the robust backup minimizes over u."""
        tables = self.expected_rewards() + self.gamma * self.transitions @ values
        return np.moveaxis(tables, 0, -1)

    def policy_values(self, policy: np.ndarray) -> np.ndarray:
        """Exact V^π_u(s) for every member u, shape (U, S), by solving (I - γ P_π) V = r_π."""
        states = np.arange(self.num_states)
        p_pi = self.transitions[:, states, policy, :]  # (U, S, S)
        r_pi = self.expected_rewards()[:, states, policy]  # (U, S)
        p_pi = np.where(self.terminal[None, :, None], 0.0, p_pi)
        r_pi = np.where(self.terminal[None, :], 0.0, r_pi)
        eye = np.eye(self.num_states)[None]
        return np.linalg.solve(eye - self.gamma * p_pi, r_pi[..., None])[..., 0]

    def worst_case_return(self, policy: np.ndarray) -> tuple[float, int]:
        """min over u of the expected discounted return from `start`, and the minimizing u."""
        returns = self.policy_values(policy)[:, self.start]
        worst = int(np.argmin(returns))
        return float(returns[worst]), worst

    def rectangular_values(self, policy: np.ndarray, tol: float = 1e-12) -> np.ndarray:
        """V^π under the (s, a)-rectangular adversary, shape (S,): at every visit of every
        state the worst member for that state and action is chosen anew. This is the value
        robust value iteration maximizes (its policy is optimal for it); it is never above
        the member-wise worst case min_u V^π_u, which a single fixed member achieves.
        Computed by iterating the policy's robust Bellman operator (a γ-contraction) with
        exhaustive minimization, to `tol`."""
        states = np.arange(self.num_states)
        values = np.zeros(self.num_states)
        for _ in range(100_000):
            tables = self.backup_tables(values)[states, policy]  # (S, U)
            updated = np.where(self.terminal, 0.0, tables.min(axis=1))
            if np.max(np.abs(updated - values)) < tol:
                return updated
            values = updated
        return values

    def step(
        self, u: int, state: int, action: int, rng: np.random.Generator
    ) -> tuple[int, float, bool]:
        """Run member u classically for one step: (next state, reward, episode over)."""
        following = int(rng.choice(self.num_states, p=self.transitions[u, state, action]))
        return (
            following,
            float(self.rewards[u, state, action, following]),
            bool(self.terminal[following]),
        )

    def member(self, u: int) -> RobustMDP:
        """Member u alone: an ordinary MDP (an uncertainty set of one)."""
        return replace(
            self,
            name=f"{self.name}[{u}]",
            transitions=self.transitions[u : u + 1],
            rewards=self.rewards[u : u + 1],
            nominal=0,
            members=self.members[u : u + 1],
        )
