"""Discrete factor graphs: variables with cardinalities and non-negative factor tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import InputFileError


class FactorGraphError(InputFileError):
    """A factor graph (or a file holding one) that breaks the rules; the message says where."""


@dataclass(frozen=True)
class Factor:
    """scope: variable indices (distinct); table: non-negative values, one axis per scope
    variable in scope order (table[x_0, x_1, ...])."""

    scope: tuple[int, ...]
    table: np.ndarray


@dataclass(frozen=True)
class FactorGraph:
    """P(x) ∝ Π_a ψ_a(x_a) over variables 0..n−1 with `cardinalities`; `names` label the
    variables (defaults: their indices), `states` their states (defaults: "0", "1", …)."""

    cardinalities: tuple[int, ...]
    factors: tuple[Factor, ...]
    names: tuple[str, ...] = ()
    states: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def build(
        cls,
        cardinalities: Sequence[int],
        factors: Sequence[tuple[Sequence[int], np.ndarray]],
        names: Sequence[str] | None = None,
        source: str = "factor graph",
        states: Sequence[Sequence[str]] | None = None,
    ) -> FactorGraph:
        """A validated factor graph; `source` names the origin in error messages."""
        cards = tuple(int(c) for c in cardinalities)
        if any(c < 1 for c in cards):
            raise FactorGraphError(f"{source}: cardinalities must be ≥ 1, got {cards}")
        built = []
        for number, (scope, table) in enumerate(factors):
            scope = tuple(int(v) for v in scope)
            where = f"{source}: factor {number}"
            if len(set(scope)) != len(scope):
                raise FactorGraphError(f"{where}: scope {scope} repeats a variable")
            if any(not 0 <= v < len(cards) for v in scope):
                raise FactorGraphError(f"{where}: variable out of range 0..{len(cards) - 1}")
            table = np.asarray(table, dtype=float)
            expected = tuple(cards[v] for v in scope)
            if table.shape != expected:
                raise FactorGraphError(
                    f"{where}: table shape {table.shape}, scope needs {expected}"
                )
            if not np.isfinite(table).all() or (table < 0).any():
                raise FactorGraphError(f"{where}: negative or non-finite table entries")
            if not (table > 0).any():
                raise FactorGraphError(f"{where}: all table entries are zero")
            built.append(Factor(scope, table))
        labels = tuple(names) if names is not None else tuple(str(i) for i in range(len(cards)))
        if len(labels) != len(cards):
            raise FactorGraphError(f"{source}: {len(labels)} names for {len(cards)} variables")
        if states is None:
            states = [[str(k) for k in range(c)] for c in cards]
        named = tuple(tuple(str(s) for s in each) for each in states)
        if tuple(len(each) for each in named) != cards:
            raise FactorGraphError(f"{source}: state names do not match the cardinalities")
        return cls(cards, tuple(built), labels, named)

    @property
    def variables(self) -> int:
        return len(self.cardinalities)

    def neighbours(self, variable: int) -> list[int]:
        """Indices of the factors whose scope holds `variable` (in factor order)."""
        return self._around[variable]

    @cached_property
    def _around(self) -> list[list[int]]:
        around: list[list[int]] = [[] for _ in self.cardinalities]
        for a, factor in enumerate(self.factors):
            for i in factor.scope:
                around[i].append(a)
        return around

    def edges(self) -> list[tuple[int, int]]:
        """(variable, factor) pairs, factor-major."""
        return [(i, a) for a, f in enumerate(self.factors) for i in f.scope]
