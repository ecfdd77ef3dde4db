"""Products and sums of factor tables over named scopes, by broadcasting."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def aligned(scope: Sequence[int], table: np.ndarray, target: Sequence[int]) -> np.ndarray:
    """`table` over `scope` as an array broadcastable over `target` (scope ⊆ target)."""
    order = sorted(range(len(scope)), key=lambda k: target.index(scope[k]))
    moved = np.transpose(table, order)
    shape = [1] * len(target)
    for k in order:
        shape[target.index(scope[k])] = table.shape[k]
    return moved.reshape(shape)


def product(
    factors: Iterable[tuple[Sequence[int], np.ndarray]],
) -> tuple[tuple[int, ...], np.ndarray]:
    """The product of factors over the union of their scopes (first-seen order)."""
    factors = list(factors)
    scope: list[int] = []
    for s, _ in factors:
        scope += [v for v in s if v not in scope]
    result = np.ones([1] * len(scope))
    for s, table in factors:
        result = result * aligned(s, table, scope)
    return tuple(scope), result


def sum_out(
    scope: Sequence[int], table: np.ndarray, variables: Iterable[int]
) -> tuple[tuple[int, ...], np.ndarray]:
    """Sum `table` over `variables`."""
    gone = [scope.index(v) for v in variables if v in scope]
    kept = tuple(v for v in scope if v not in set(variables))
    return kept, table.sum(axis=tuple(gone)) if gone else table
