"""The Bayesian Interchange Format (BIF 0.15, as written by bnlearn, pgmpy, Hugin and GeNIe
exports), plain or gzipped (`.bif.gz`, as pgmpy ships the classic networks):

    network NAME { property ... ; }
    variable NAME { type discrete [ 3 ] { low, mid, high }; property ... ; }
    probability ( CHILD | PARENT1, PARENT2 ) {
      (p1state, p2state) 0.1, 0.7, 0.2;     one row per parent configuration
      default 0.3, 0.3, 0.4;                rows not listed
    }
    probability ( ROOT ) { table 0.2, 0.8; }

`//` and `/* */` are comments. A `table` list under parents is refused: tools disagree on
its order (pgmpy reads it child-major), so a file using it would be read differently by
each; write rows instead. Each conditional table becomes one factor over (child, parents…)
with the child's axis first, P(child | parents) in table[child, parent1, …]."""

from __future__ import annotations

import gzip
import math
import os
import re
from pathlib import Path

import numpy as np

from .bayes import check_network, check_rows
from .factor_graph import FactorGraph, FactorGraphError
from .tokens import MAX_FILE_BYTES, MAX_TABLE_ENTRIES

_TOKEN = re.compile(r'"[^"]*"|[{}()\[\];,|]|[^\s{}()\[\];,|"]+')
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


class _Tokens:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.items: list[tuple[str, int]] = []
        line, last = 1, 0
        for match in _TOKEN.finditer(text):
            line += text.count("\n", last, match.start())
            last = match.start()
            self.items.append((match.group(), line))
        self.position = 0

    def error(self, message: str) -> FactorGraphError:
        line = self.items[min(self.position, len(self.items) - 1)][1] if self.items else 1
        return FactorGraphError(f"{self.path}:{line}: {message}")

    def peek(self) -> str | None:
        return self.items[self.position][0] if self.position < len(self.items) else None

    def next(self, what: str) -> str:
        if self.position >= len(self.items):
            raise FactorGraphError(f"{self.path}: the file ends where {what} was expected")
        token = self.items[self.position][0]
        self.position += 1
        return token

    def expect(self, token: str) -> None:
        got = self.next(repr(token))
        if got != token:
            self.position -= 1
            raise self.error(f"expected {token!r}, got {got!r}")

    def until(self, stop: str) -> list[str]:
        """Tokens up to `stop` (consumed), commas dropped."""
        out = []
        while (token := self.next(repr(stop))) != stop:
            if token != ",":
                out.append(token)
        return out

    def skip_block(self) -> None:
        """From an opening '{' to its matching '}'."""
        self.expect("{")
        depth = 1
        while depth:
            token = self.next("'}'")
            depth += {"{": 1, "}": -1}.get(token, 0)


def _text(path: Path, max_bytes: int) -> str:
    if not path.is_file():
        raise FactorGraphError(f"{path}: no such file")
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path) as stream:
                raw = stream.read(max_bytes + 1)
        else:
            with path.open("rb") as stream:
                raw = stream.read(max_bytes + 1)
    except (OSError, EOFError) as error:
        raise FactorGraphError(f"{path}: cannot be read: {error}") from None
    if len(raw) > max_bytes:
        raise FactorGraphError(f"{path}: more than the {max_bytes:,} bytes read (uncompressed)")
    try:
        return _COMMENT.sub(" ", raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise FactorGraphError(f"{path}: not a text file (expected UTF-8 BIF)") from None


def read_bif(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """Read a BIF file (`.bif` or `.bif.gz`) into a factor graph with one factor per
    conditional table; variables keep their names and state names. Refused with the file
    and line: unknown states or variables, a table of more than `max_table_entries`
    entries (before it is allocated), rows that do not sum to 1, a parent configuration
    given twice or never (without `default`), two tables for one variable, a variable
    without a table, and parents that form a directed cycle.

    Example:
        >>> from substrates.datasets.crn.bif import read_bif
        >>> import pathlib, tempfile
        >>> text = '''network n { }
        ... variable rain { type discrete [ 2 ] { yes, no }; }
        ... variable wet { type discrete [ 2 ] { yes, no }; }
        ... probability ( rain ) { table 0.2, 0.8; }
        ... probability ( wet | rain ) { (yes) 0.9, 0.1; (no) 0.1, 0.9; }'''
        >>> file = pathlib.Path(tempfile.mkdtemp()) / "wet.bif"
        >>> _ = file.write_text(text)
        >>> graph = read_bif(file)
        >>> graph.names, graph.states[1]
        (('rain', 'wet'), ('yes', 'no'))
    """
    path = Path(path)
    tokens = _Tokens(path, _text(path, MAX_FILE_BYTES))
    states: dict[str, tuple[str, ...]] = {}
    blocks: list[tuple[str, list[str], int]] = []  # (child, parents, token position)
    while (keyword := tokens.peek()) is not None:
        tokens.next("a block")
        if keyword == "network":
            while tokens.peek() not in ("{", None):
                tokens.next("the network's name")
            tokens.skip_block()
        elif keyword == "variable":
            name = tokens.next("a variable name")
            if name in states:
                raise tokens.error(f"variable {name!r} declared twice")
            states[name] = _variable(tokens, name)
        elif keyword == "probability":
            tokens.expect("(")
            names = [t for t in tokens.until(")") if t != "|"]
            if not names:
                raise tokens.error("a probability block names no variable")
            blocks.append((names[0], names[1:], tokens.position))
            tokens.skip_block()
        else:
            raise tokens.error(f"expected network, variable or probability, got {keyword!r}")
    index = {name: i for i, name in enumerate(states)}
    families, factors = [], []
    for child, parents, position in blocks:
        tokens.position = position
        for name in (child, *parents):
            if name not in index:
                raise tokens.error(f"probability block names undeclared variable {name!r}")
        if len(set(parents)) != len(parents) or child in parents:
            raise tokens.error(f"probability ( {child} | …) repeats a variable")
        table = _table(tokens, child, parents, states, max_table_entries)
        families.append((index[child], tuple(index[p] for p in parents)))
        factors.append(([index[child], *(index[p] for p in parents)], table))
    check_network(str(path), list(states), families)
    return FactorGraph.build(
        [len(s) for s in states.values()],
        factors,
        list(states),
        source=str(path),
        states=list(states.values()),
    )


def _variable(tokens: _Tokens, name: str) -> tuple[str, ...]:
    tokens.expect("{")
    found: tuple[str, ...] | None = None
    while (token := tokens.next("'}'")) != "}":
        if token == "type":
            kind = tokens.next("the variable type")
            if kind != "discrete":
                raise tokens.error(f"variable {name!r} is {kind}; only discrete variables")
            tokens.expect("[")
            count = tokens.next("the number of states")
            tokens.expect("]")
            tokens.expect("{")
            found = tuple(tokens.until("}"))
            tokens.expect(";")
            if not count.isdigit() or int(count) != len(found):
                raise tokens.error(f"variable {name!r}: [ {count} ] but {len(found)} states")
            if len(set(found)) != len(found):
                raise tokens.error(f"variable {name!r} repeats a state name")
        elif token == "property":
            tokens.until(";")
        else:
            raise tokens.error(f"variable {name!r}: unexpected {token!r}")
    if not found:
        raise tokens.error(f"variable {name!r} has no 'type discrete' line")
    return found


def _numbers(tokens: _Tokens, count: int, what: str) -> list[float]:
    values = tokens.until(";")
    if len(values) != count:
        raise tokens.error(f"{what}: {len(values)} values, expected {count}")
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        raise tokens.error(f"{what}: values must be numbers, got {values}") from None
    if not all(math.isfinite(v) for v in numbers):
        shown = ", ".join(v for v, n in zip(values, numbers, strict=True) if not math.isfinite(n))
        raise tokens.error(f"{what}: non-finite probabilities ({shown})")
    return numbers


def _table(
    tokens: _Tokens,
    child: str,
    parents: list[str],
    states: dict[str, tuple[str, ...]],
    max_table_entries: int,
) -> np.ndarray:
    """Read the block at the tokens' position into table[child, parents…]."""
    shape = [len(states[name]) for name in (child, *parents)]
    where = f"probability ( {child}{' | ' + ', '.join(parents) if parents else ''} )"
    if math.prod(shape) > max_table_entries:
        raise tokens.error(
            f"{where}: {math.prod(shape):,} entries, more than the {max_table_entries:,} allowed"
        )
    rows = np.full([*shape[1:], shape[0]], np.nan)  # parents…, child last while reading
    default = None
    tokens.expect("{")
    while (token := tokens.next("'}'")) != "}":
        if token == "table":
            if parents:
                raise tokens.error(
                    f"{where}: 'table' under parents has no agreed order across tools; "
                    "write one row per parent configuration"
                )
            rows[...] = _numbers(tokens, shape[0], where)
        elif token == "default":
            default = _numbers(tokens, shape[0], where)
        elif token == "property":
            tokens.until(";")
        elif token == "(":
            named = tokens.until(")")
            if len(named) != len(parents):
                raise tokens.error(
                    f"{where}: row ({', '.join(named)}) names {len(named)} "
                    f"states for {len(parents)} parents"
                )
            try:
                at = tuple(states[p].index(s) for p, s in zip(parents, named, strict=True))
            except ValueError:
                raise tokens.error(
                    f"{where}: row ({', '.join(named)}) names an unknown state"
                ) from None
            if not np.isnan(rows[at]).all():
                raise tokens.error(f"{where}: row ({', '.join(named)}) given twice")
            rows[at] = _numbers(tokens, shape[0], where)
        else:
            raise tokens.error(f"{where}: unexpected {token!r}")
    unset = np.isnan(rows).all(axis=-1)
    if unset.any():
        if default is None:
            missing = tuple(int(i) for i in np.argwhere(unset)[0])
            shown = ", ".join(states[p][k] for p, k in zip(parents, missing, strict=True))
            raise tokens.error(f"{where}: no row for ({shown}) and no default")
        rows[unset] = default
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise tokens.error(f"{where}: negative or non-finite probabilities")
    check_rows(f"{tokens.path}: {where}", rows)
    return np.moveaxis(rows, -1, 0)
