"""Inventory control with uncertain Poisson demand: order stock, sell, pay to hold it."""

from __future__ import annotations

import numpy as np
from scipy.stats import poisson

from ..mdp import RobustMDP

CAPACITY = 7
MAX_ORDER = 3
PRICE = 4.0
ORDER_COST = 2.0
HOLDING_COST = 0.5


def inventory(num_members: int, gamma: float = 0.95) -> RobustMDP:
    """States: stock 0..CAPACITY. Actions: order 0..MAX_ORDER units (arrive at once).

    Member u draws demand from Poisson(λ_u), λ from 0.5 to 4 per period; the nominal
    member is the middle one. Reward: PRICE per unit sold − ORDER_COST per unit ordered −
    HOLDING_COST per unit left over.
    """
    rates = np.linspace(0.5, 4.0, num_members)
    n_states, n_actions = CAPACITY + 1, MAX_ORDER + 1
    transitions = np.zeros((num_members, n_states, n_actions, n_states))
    rewards = np.zeros_like(transitions)
    for u, rate in enumerate(rates):
        demand = poisson.pmf(np.arange(CAPACITY + 1), rate)
        demand[-1] += 1 - demand.sum()  # demand ≥ CAPACITY empties any stock
        for s in range(n_states):
            for a in range(n_actions):
                on_hand = min(s + a, CAPACITY)
                for d, p in enumerate(demand):
                    left = max(on_hand - d, 0)
                    transitions[u, s, a, left] += p
                    rewards[u, s, a, left] = (
                        PRICE * (on_hand - left) - ORDER_COST * a - HOLDING_COST * left
                    )
    return RobustMDP(
        name="inventory",
        transitions=transitions,
        rewards=rewards,
        gamma=gamma,
        start=0,
        terminal=np.zeros(n_states, dtype=bool),
        nominal=num_members // 2,
        members=tuple(f"demand~Poisson({r:.2f})" for r in rates),
        state_labels=tuple(str(s) for s in range(n_states)),
    )
