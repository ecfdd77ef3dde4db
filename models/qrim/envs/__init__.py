"""Robust environments by name."""

from __future__ import annotations

from collections.abc import Callable

from ..mdp import RobustMDP
from .frozenlake import frozenlake
from .inventory import inventory

ENVIRONMENTS: dict[str, Callable[[int, float], RobustMDP]] = {
    "frozenlake4": lambda members, gamma: frozenlake(4, members, gamma),
    "frozenlake8": lambda members, gamma: frozenlake(8, members, gamma),
    "inventory": inventory,
}


def make_env(name: str, num_members: int, gamma: float = 0.95) -> RobustMDP:
    """The environment `name` with an uncertainty set of `num_members` (a power of two)."""
    if name not in ENVIRONMENTS:
        raise ValueError(f"unknown environment {name!r}; known: {', '.join(ENVIRONMENTS)}")
    if num_members < 2 or num_members & (num_members - 1) or num_members > 1024:
        raise ValueError(
            f"uncertainty set size {num_members} is not a power of two from 2 to 1024; "
            "QRIM indexes U with qubits, so |U| = 2^n (sizes are refused, not padded)"
        )
    if not 0 < gamma < 1:
        raise ValueError(f"discount gamma must lie in (0, 1), got {gamma}")
    return ENVIRONMENTS[name](num_members, gamma)
