"""The counts table: one row per (circuit, outcome), as Arrow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

COUNTS_SCHEMA = pa.schema(
    [
        pa.field("circuit", pa.string(), nullable=False),
        pa.field("bitstring", pa.string(), nullable=False),
        pa.field("count", pa.int64(), nullable=False),
        pa.field("shots", pa.int64(), nullable=False),
        pa.field("probability", pa.float64(), nullable=True),
    ],
    metadata={"bitstring": "Qiskit order: classical bit 0 is the rightmost character"},
)
"""probability: the exact probability where the backend computes one, else null."""


def counts_table(
    names: Sequence[str],
    counts: Sequence[Mapping[str, int]],
    shots: int,
    exact: Sequence[Mapping[str, float]] | None = None,
) -> pa.Table:
    """Rows sorted by circuit, then by count (descending)."""
    columns: dict[str, list] = {f.name: [] for f in COUNTS_SCHEMA}
    for i, (name, table) in enumerate(zip(names, counts, strict=True)):
        outcomes = dict(table)
        if exact is not None:
            outcomes.update({b: outcomes.get(b, 0) for b in exact[i]})
        for bitstring, count in sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0])):
            columns["circuit"].append(name)
            columns["bitstring"].append(bitstring)
            columns["count"].append(count)
            columns["shots"].append(shots)
            columns["probability"].append(None if exact is None else exact[i].get(bitstring, 0.0))
    return pa.table(columns, schema=COUNTS_SCHEMA)
