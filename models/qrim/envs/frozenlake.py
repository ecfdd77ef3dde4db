"""FrozenLake grids whose ice is uncertain: slip probability and wind direction per member."""

from __future__ import annotations

import numpy as np

from ..mdp import RobustMDP

MAPS = {
    4: ["SFFF", "FHFH", "FFFH", "HFFG"],
    8: [
        "SFFFFFFF",
        "FFFFFFFF",
        "FFFHFFFF",
        "FFFFFHFF",
        "FFFHFFFF",
        "FHHFFFHF",
        "FHFFHFHF",
        "FFFHFFFG",
    ],
}
"""Gymnasium's FrozenLake maps: S start, F ice, H hole, G goal."""

ACTIONS = ("left", "down", "right", "up")
MOVES = ((0, -1), (1, 0), (0, 1), (-1, 0))
WIND_PROBABILITY = 0.15


def members(count: int) -> list[tuple[float, int | None]]:
    """(slip probability, wind direction or None) for each of `count` members.

    Slip sends the agent to either side of its intended move; wind pushes it one cell in a
    fixed direction. Member 0, the calmest, is the nominal model.
    """
    if count < 4:
        return [(float(p), None) for p in np.linspace(0.05, 0.45, count)]
    slips = np.linspace(0.05, 0.45, count // 4)
    return [(float(p), wind) for p in slips for wind in range(4)]


def frozenlake(size: int, num_members: int, gamma: float = 0.95) -> RobustMDP:
    """A robust FrozenLake on the size x size map; reward 1 on reaching the goal."""
    grid = MAPS[size]
    n_states = size * size

    def step(state: int, direction: int) -> int:
        row, col = divmod(state, size)
        d_row, d_col = MOVES[direction]
        row = min(max(row + d_row, 0), size - 1)
        col = min(max(col + d_col, 0), size - 1)
        return row * size + col

    cells = "".join(grid)
    terminal = np.array([c in "HG" for c in cells])
    goal = cells.index("G")
    params = members(num_members)
    transitions = np.zeros((num_members, n_states, 4, n_states))
    for u, (slip, wind) in enumerate(params):
        for s in range(n_states):
            for a in range(4):
                if terminal[s]:
                    transitions[u, s, a, s] = 1.0
                    continue
                outcomes = [(a, 1 - slip), ((a - 1) % 4, slip / 2), ((a + 1) % 4, slip / 2)]
                for direction, p in outcomes:
                    landing = step(s, direction)
                    if wind is None or terminal[landing]:
                        transitions[u, s, a, landing] += p
                    else:
                        transitions[u, s, a, landing] += p * (1 - WIND_PROBABILITY)
                        transitions[u, s, a, step(landing, wind)] += p * WIND_PROBABILITY
    rewards = np.zeros_like(transitions)
    rewards[:, ~terminal, :, goal] = 1.0
    names = tuple(
        f"slip={slip:.2f}" + ("" if wind is None else f",wind={ACTIONS[wind]}")
        for slip, wind in params
    )
    return RobustMDP(
        name=f"frozenlake{size}",
        transitions=transitions,
        rewards=rewards,
        gamma=gamma,
        start=cells.index("S"),
        terminal=terminal,
        nominal=0,
        members=names,
        state_labels=tuple(cells),
    )
