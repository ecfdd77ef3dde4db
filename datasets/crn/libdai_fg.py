"""libDAI's .fg format: the number of factors, then one block per factor (blank lines between):
number of variables; their labels; their cardinalities; the number of nonzero entries; then
`index value` lines, the left-most variable cycling fastest. '#' lines are comments.
Labels are non-negative integers; variables are numbered by sorted label."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .factor_graph import FactorGraph, FactorGraphError
from .tokens import MAX_TABLE_ENTRIES, Tokens


def read_fg(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """Read a .fg file; errors name the file and line. A factor whose table would hold
    more than max_table_entries, and an index given twice, are refused (before any table
    is allocated)."""
    path = Path(path)
    tokens = Tokens(path)
    count = tokens.integer("number of factors", minimum=0)
    raw = []
    for _ in range(count):
        size = tokens.integer("number of variables of a factor", minimum=1)
        labels = [tokens.integer("variable label", minimum=0) for _ in range(size)]
        cards = [tokens.integer("cardinality", minimum=1) for _ in range(size)]
        total = math.prod(cards)
        if total > max_table_entries:
            raise tokens.error(
                f"a factor of {total:,} table entries ({' × '.join(map(str, cards))}"
                f"), more than the {max_table_entries:,} allowed"
            )
        entries = tokens.integer("number of nonzero entries", minimum=0)
        if entries > total:
            raise tokens.error(f"{entries:,} nonzero entries in a table of {total:,}")
        table = np.zeros(total)
        given = np.zeros(total, bool)
        for _ in range(entries):
            index = tokens.integer("table index", minimum=0)
            if index >= total:
                raise tokens.error(f"table index {index} out of range 0..{total - 1}")
            if given[index]:
                raise tokens.error(f"table index {index} given twice")
            given[index] = True
            table[index] = tokens.number("table value")
        raw.append((labels, cards, table.reshape(cards, order="F"), tokens.line))
    tokens.end()
    cardinality: dict[int, int] = {}
    for labels, cards, _, line in raw:
        for label, card in zip(labels, cards, strict=True):
            if cardinality.setdefault(label, card) != card:
                raise FactorGraphError(
                    f"{path}:{line}: variable {label} has cardinality {card} here and "
                    f"{cardinality[label]} before"
                )
    order = sorted(cardinality)
    position = {label: i for i, label in enumerate(order)}
    factors = [([position[label] for label in labels], table) for labels, _, table, _ in raw]
    return FactorGraph.build(
        [cardinality[label] for label in order],
        factors,
        [str(label) for label in order],
        source=str(path),
    )


def write_fg(graph: FactorGraph, path: str | os.PathLike[str]) -> None:
    """Write `graph` as .fg, labels = variable indices, every entry (zeros included)."""
    lines = [str(len(graph.factors)), ""]
    for factor in graph.factors:
        values = factor.table.ravel(order="F")
        lines += [
            str(len(factor.scope)),
            " ".join(str(v) for v in factor.scope),
            " ".join(str(graph.cardinalities[v]) for v in factor.scope),
            str(len(values)),
            *(f"{i} {value!r}" for i, value in enumerate(values.tolist())),
            "",
        ]
    Path(path).write_text("\n".join(lines))
