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


SEARCH_SCHEMA = pa.schema(
    [
        ("minimization", pa.int64()),  # row of the minimizations table
        ("repetition", pa.int64()),
        ("step", pa.int64()),
        ("start", pa.int64()),  # the member the run started from
        ("start_value", pa.float64()),  # its value, as queried
        ("threshold_index", pa.int64()),
        ("iterations", pa.int64()),
        ("measured", pa.int64()),
        ("value", pa.float64()),  # the measured member's value, as queried
        ("doubt", pa.float64()),  # P(a better member is left) before the circuit ran
    ]
)
"""Every measured circuit of every Dürr–Høyer run: enough to replay and audit each search
(`models.qrim.search.replay_search`)."""


@dataclass
class RobustSolution:
    """policy[s]: action; q[s, a]: robust action values; minimizations: one row each."""

    policy: np.ndarray
    q: np.ndarray
    iterations: int
    minimizations: dict[str, list] = field(
        default_factory=lambda: {f.name: [] for f in MINIMIZATION_SCHEMA}
    )
    searches: list[pa.RecordBatch] = field(default_factory=list)

    def record(
        self,
        iteration: int,
        pairs: list[tuple[int, int]],
        tables: list[np.ndarray],
        results: list[InnerResult],
    ) -> None:
        columns = self.minimizations
        for (state, action), table, result in zip(pairs, tables, results, strict=True):
            self._record_searches(len(columns["iteration"]), result)
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

    def _record_searches(self, row: int, result: InnerResult) -> None:
        rows = [
            (
                row,
                repetition,
                number,
                run.start,
                run.start_value,
                step.threshold_index,
                step.iterations,
                step.measured,
                step.value,
                step.doubt,
            )
            for repetition, run in enumerate(result.searches)
            for number, step in enumerate(run.steps)
        ]
        if rows:
            columns = [list(column) for column in zip(*rows, strict=True)]
            self.searches.append(pa.RecordBatch.from_arrays(columns, schema=SEARCH_SCHEMA))

    def table(self) -> pa.Table:
        return pa.table(self.minimizations, schema=MINIMIZATION_SCHEMA)

    def search_table(self) -> pa.Table:
        """One row per measured circuit of every search (SEARCH_SCHEMA)."""
        return pa.Table.from_batches(self.searches, schema=SEARCH_SCHEMA)
