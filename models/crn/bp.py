"""Sum-product belief propagation with normalised messages, damping and two schedules.

m_{i→a}(x_i) ∝ Π_{b∋i, b≠a} m_{b→i}(x_i)
m_{a→i}(x_i) ∝ Σ_{x_a∖i} ψ_a(x_a) Π_{j∈a, j≠i} m_{j→a}(x_j)
b_i(x_i)     ∝ Π_{a∋i} m_{a→i}(x_i)
Damping d mixes each new factor→variable message with the old one: (1 − d)·F + d·m.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from .tables import aligned

Schedule = Literal["parallel", "sequential"]


@dataclass
class Messages:
    """to_factor[(i, a)] = m_{i→a}; to_variable[(a, i)] = m_{a→i}; each sums to 1."""

    to_factor: dict[tuple[int, int], np.ndarray]
    to_variable: dict[tuple[int, int], np.ndarray]

    @classmethod
    def uniform(cls, graph: FactorGraph) -> Messages:
        def flat(i: int) -> np.ndarray:
            return np.full(graph.cardinalities[i], 1.0 / graph.cardinalities[i])

        edges = graph.edges()
        return cls({(i, a): flat(i) for i, a in edges}, {(a, i): flat(i) for i, a in edges})

    def copy(self) -> Messages:
        return Messages(
            {k: v.copy() for k, v in self.to_factor.items()},
            {k: v.copy() for k, v in self.to_variable.items()},
        )


@dataclass
class BPResult:
    """beliefs per variable; the final messages; sweeps run; whether the largest message
    change fell below the tolerance; the fixed-point residual max |F(m) − m|."""

    beliefs: list[np.ndarray]
    messages: Messages
    iterations: int
    converged: bool
    residual: float


def _normalised(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    if not total > 0:
        raise FloatingPointError("a BP message vanished (all-zero product of its inputs)")
    return values / total


def variable_to_factor(graph: FactorGraph, m: Messages, i: int, a: int) -> np.ndarray:
    out = np.ones(graph.cardinalities[i])
    for b in graph.neighbours(i):
        if b != a:
            out = out * m.to_variable[(b, i)]
    return _normalised(out)


def factor_to_variable(graph: FactorGraph, m: Messages, a: int, i: int) -> np.ndarray:
    factor = graph.factors[a]
    product = factor.table
    for j in factor.scope:
        if j != i:
            product = product * aligned((j,), m.to_factor[(j, a)], factor.scope)
    axes = tuple(k for k, j in enumerate(factor.scope) if j != i)
    return _normalised(product.sum(axis=axes))


def beliefs(graph: FactorGraph, m: Messages) -> list[np.ndarray]:
    out = []
    for i in range(graph.variables):
        belief = np.ones(graph.cardinalities[i])
        for a in graph.neighbours(i):
            belief = belief * m.to_variable[(a, i)]
        out.append(_normalised(belief))
    return out


def update(graph: FactorGraph, m: Messages) -> Messages:
    """F(m): every message recomputed from `m` at once (the BP map)."""
    to_factor = {(i, a): variable_to_factor(graph, m, i, a) for i, a in m.to_factor}
    to_variable = {(a, i): factor_to_variable(graph, m, a, i) for a, i in m.to_variable}
    return Messages(to_factor, to_variable)


def difference(first: Messages, second: Messages) -> float:
    """Largest absolute difference between corresponding message components."""
    pairs = [(first.to_factor, second.to_factor), (first.to_variable, second.to_variable)]
    return max(
        (float(np.abs(one[k] - other[k]).max()) for one, other in pairs for k in one),
        default=0.0,
    )


def residual(graph: FactorGraph, m: Messages) -> float:
    """max |F(m) − m| over all message components: 0 at a BP fixed point."""
    return difference(update(graph, m), m)


def belief_propagation(
    graph: FactorGraph,
    damping: float = 0.0,
    schedule: Schedule = "sequential",
    tolerance: float = 1e-12,
    max_iterations: int = 10_000,
    initial: Messages | None = None,
) -> BPResult:
    """Run BP from `initial` (default: uniform messages) until the largest change of a
    message in one sweep is below `tolerance`."""
    if not 0 <= damping < 1:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    if schedule not in ("parallel", "sequential"):
        raise ValueError(f"schedule must be 'parallel' or 'sequential', got {schedule!r}")
    m = (initial or Messages.uniform(graph)).copy()
    change, sweeps = np.inf, 0
    while change >= tolerance and sweeps < max_iterations:
        sweeps += 1
        old = m.copy()
        if schedule == "parallel":
            new = update(graph, m)
            m.to_factor = new.to_factor
            m.to_variable = {
                k: (1 - damping) * v + damping * m.to_variable[k]
                for k, v in new.to_variable.items()
            }
        else:
            for a, factor in enumerate(graph.factors):
                for i in factor.scope:
                    m.to_factor[(i, a)] = variable_to_factor(graph, m, i, a)
                for i in factor.scope:
                    fresh = factor_to_variable(graph, m, a, i)
                    m.to_variable[(a, i)] = (1 - damping) * fresh + damping * m.to_variable[(a, i)]
        change = difference(m, old)
    return BPResult(beliefs(graph, m), m, sweeps, change < tolerance, residual(graph, m))
