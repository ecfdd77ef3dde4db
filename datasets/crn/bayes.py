"""Checks every Bayesian-network reader applies before a network becomes a factor graph:
one conditional table per variable, no directed cycle, rows that are distributions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .factor_graph import FactorGraphError

ROW_TOLERANCE = 1e-3
"""How far a conditional table's row may sum from 1 (published networks round to 3–4
decimals; pgmpy's reader allows 0.01)."""


def check_network(
    source: str, names: Sequence[str], families: Sequence[tuple[int, tuple[int, ...]]]
) -> None:
    """Raise FactorGraphError unless `families` — (child, parents) per conditional table,
    indices into `names` — give every variable exactly one table and the parent relation
    has no directed cycle (the message names the variables on it)."""
    seen: dict[int, int] = {}
    for number, (child, _) in enumerate(families):
        if child in seen:
            raise FactorGraphError(
                f"{source}: two conditional tables for {names[child]!r} (tables {seen[child]} "
                f"and {number})"
            )
        seen[child] = number
    missing = [names[v] for v in range(len(names)) if v not in seen]
    if missing:
        shown = ", ".join(missing[:5]) + ("…" if len(missing) > 5 else "")
        raise FactorGraphError(f"{source}: no conditional table for {shown}")
    cycle = directed_cycle(len(names), families)
    if cycle:
        path = " → ".join(names[v] for v in [*cycle, cycle[0]])
        raise FactorGraphError(f"{source}: the parents form a directed cycle: {path}")


def directed_cycle(variables: int, families: Sequence[tuple[int, tuple[int, ...]]]) -> list[int]:
    """A directed cycle parent → child (its variables in order), or [] for a DAG."""
    children: list[list[int]] = [[] for _ in range(variables)]
    for child, parents in families:
        for parent in parents:
            children[parent].append(child)
    state = [0] * variables  # 0 unseen, 1 on the current path, 2 done
    for root in range(variables):
        if state[root]:
            continue
        path, stack = [root], [iter(children[root])]
        state[root] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state[step] == 1:
                return path[path.index(step) :]
            elif state[step] == 0:
                state[step] = 1
                path.append(step)
                stack.append(iter(children[step]))
    return []


def check_rows(where: str, table: np.ndarray) -> None:
    """`table` (child on the last axis) holds a distribution over the child in every row."""
    sums = table.sum(axis=-1)
    worst = float(np.abs(sums - 1.0).max(initial=0.0))
    if worst > ROW_TOLERANCE:
        raise FactorGraphError(
            f"{where}: a row sums to {float(sums.flat[np.argmax(np.abs(sums - 1.0))]):.6g}, "
            f"not 1 (a conditional distribution of the child)"
        )
