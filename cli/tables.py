"""Tables printed for people: columns padded to their widest cell, the last one free."""

from __future__ import annotations

from collections.abc import Sequence


def print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """One line per row, every column but the last padded to its widest cell."""
    table = [tuple(header), *(tuple(row) for row in rows)]
    last = len(header) - 1
    widths = [max(len(row[i]) for row in table) for i in range(last)]
    for row in table:
        cells = "  ".join(cell.ljust(w) for cell, w in zip(row[:last], widths, strict=True))
        print(cells, row[last])
