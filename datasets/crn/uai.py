"""The UAI inference-competition format: 'MARKOV' or 'BAYES'; the number of variables;
their cardinalities; the number of factors; each factor's scope (size, then variable
indices); then each factor's table (number of entries, then the values, the last scope
variable changing fastest). In BAYES files the last scope variable is the child and each
table is its conditional distribution: every variable must be the child of exactly one
table and the parents may form no directed cycle."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .bayes import check_network, check_rows
from .factor_graph import FactorGraph
from .tokens import MAX_TABLE_ENTRIES, Tokens

KINDS = ("MARKOV", "BAYES")


def read_uai(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
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
            raise tokens.error(
                f"table {number} needs {needed:,} entries, more than the "
                f"{max_table_entries:,} allowed"
            )
        entries = tokens.integer(f"number of entries of table {number}", minimum=1)
        if entries != needed:
            raise tokens.error(f"table {number} has {entries} entries; its scope needs {needed}")
        table = np.array([tokens.number("table value") for _ in range(entries)]).reshape(shape)
        if kind == "BAYES":
            check_rows(f"{path}:{tokens.line}: table {number} (BAYES, child last)", table)
        factors.append((scope, table))
    tokens.end()
    if kind == "BAYES":
        families = [(scope[-1], tuple(scope[:-1])) for scope in scopes]
        check_network(str(path), [str(v) for v in range(count)], families)
    return FactorGraph.build(cards, factors, source=str(path))


def write_uai(graph: FactorGraph, path: str | os.PathLike[str]) -> None:
    """Write `graph` as a MARKOV .uai file."""
    lines = [
        "MARKOV",
        str(graph.variables),
        " ".join(map(str, graph.cardinalities)),
        str(len(graph.factors)),
    ]
    lines += [" ".join(map(str, [len(f.scope), *f.scope])) for f in graph.factors]
    lines.append("")
    for factor in graph.factors:
        lines += [
            str(factor.table.size),
            " ".join(repr(v) for v in factor.table.ravel().tolist()),
            "",
        ]
    Path(path).write_text("\n".join(lines))
