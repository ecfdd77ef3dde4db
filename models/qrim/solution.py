"""What an outer loop returns: a policy, its values, and a record of every inner minimization."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .inner import InnerResult

MINIMIZATION_SCHEMA = pa.schema(
    [
        ("iteration", pa.int64()),  # sweep (value iteration) or step (Q-learning)
        ("state", pa.int64()),
        ("action", pa.int64()),
        ("members", pa.int64()),  # |U|
        ("found", pa.int64()),  # member index the minimizer returned
        ("value", pa.float64()),
        ("true_min", pa.float64()),  # checked afterwards, never shown to the minimizer
        ("oracle_queries", pa.int64()),
        ("classical_queries", pa.int64()),
        ("circuits", pa.int64()),
    ]
)


@dataclass
class RobustSolution:
    """policy[s]: action; q[s, a]: robust action values; minimizations: one row each."""

    policy: np.ndarray
    q: np.ndarray
    iterations: int
    minimizations: dict[str, list] = field(
        default_factory=lambda: {f.name: [] for f in MINIMIZATION_SCHEMA}
    )

    def record(
        self, iteration: int, pairs: list[tuple[int, int]], tables: list[np.ndarray],
        results: list[InnerResult],
    ) -> None:  # fmt: skip
        columns = self.minimizations
        for (state, action), table, result in zip(pairs, tables, results, strict=True):
            columns["iteration"].append(iteration)
            columns["state"].append(state)
            columns["action"].append(action)
            columns["members"].append(len(table))
            columns["found"].append(result.index)
            columns["value"].append(result.value)
            columns["true_min"].append(float(np.min(table)))
            columns["oracle_queries"].append(result.oracle_queries)
            columns["classical_queries"].append(result.classical_queries)
            columns["circuits"].append(result.circuits)

    def table(self) -> pa.Table:
        return pa.table(self.minimizations, schema=MINIMIZATION_SCHEMA)
