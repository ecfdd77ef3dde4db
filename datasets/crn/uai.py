"""The UAI inference-competition format: 'MARKOV' or 'BAYES'; the number of variables;
their cardinalities; the number of factors; each factor's scope (size, then variable
indices); then each factor's table (number of entries, then the values, the last scope
variable changing fastest). In BAYES files the last scope variable is the child and each
table is its conditional distribution."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .factor_graph import FactorGraph
from .tokens import MAX_TABLE_ENTRIES, Tokens

KINDS = ("MARKOV", "BAYES")


def read_uai(path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
             ) -> FactorGraph:  # fmt: skip
    """Read a .uai file; errors name the file and line. BAYES tables must sum to 1 over
    the child; a table of more than max_table_entries is refused before it is read."""
    path = Path(path)
    tokens = Tokens(path)
    kind = tokens.word("MARKOV or BAYES").upper()
    if kind not in KINDS:
        raise tokens.error(f"the file starts with {kind!r}; expected MARKOV or BAYES")
    count = tokens.integer("number of variables", minimum=1)
    cards = [tokens.integer("cardinality", minimum=1) for _ in range(count)]
    scopes = []
    for _ in range(tokens.integer("number of factors", minimum=0)):
        size = tokens.integer("scope size", minimum=1)
        scope = [tokens.integer("variable index", minimum=0) for _ in range(size)]
        if max(scope) >= count:
            raise tokens.error(f"variable {max(scope)} out of range 0..{count - 1}")
        scopes.append(scope)
    factors = []
    for number, scope in enumerate(scopes):
        shape = [cards[v] for v in scope]
        needed = math.prod(shape)
        if needed > max_table_entries:
            raise tokens.error(f"table {number} needs {needed:,} entries, more than the "
                               f"{max_table_entries:,} allowed")  # fmt: skip
        entries = tokens.integer(f"number of entries of table {number}", minimum=1)
        if entries != needed:
            raise tokens.error(f"table {number} has {entries} entries; its scope needs {needed}")
        table = np.array([tokens.number("table value") for _ in range(entries)]).reshape(shape)
        if kind == "BAYES" and not np.allclose(table.sum(axis=-1), 1.0, atol=1e-6):
            raise tokens.error(f"table {number} is no conditional distribution of its last "
                               "variable (BAYES): rows do not sum to 1")  # fmt: skip
        factors.append((scope, table))
    tokens.end()
    return FactorGraph.build(cards, factors, source=str(path))


def write_uai(graph: FactorGraph, path: str | os.PathLike[str]) -> None:
    """Write `graph` as a MARKOV .uai file."""
    lines = ["MARKOV", str(graph.variables), " ".join(map(str, graph.cardinalities)),
             str(len(graph.factors))]  # fmt: skip
    lines += [" ".join(map(str, [len(f.scope), *f.scope])) for f in graph.factors]
    lines.append("")
    for factor in graph.factors:
        lines += [
            str(factor.table.size),
            " ".join(repr(v) for v in factor.table.ravel().tolist()),
            "",
        ]
    Path(path).write_text("\n".join(lines))
