"""XMLBIF 0.3 (Cozman's XML interchange format, written by pgmpy, Weka and JavaBayes):

    <BIF VERSION="0.3"><NETWORK><NAME>…</NAME>
      <VARIABLE TYPE="nature"><NAME>rain</NAME><OUTCOME>yes</OUTCOME>…</VARIABLE>
      <DEFINITION><FOR>wet</FOR><GIVEN>rain</GIVEN><TABLE>0.9 0.1 0.1 0.9</TABLE></DEFINITION>
    </NETWORK></BIF>

A TABLE lists P(FOR | GIVEN…) with the FOR variable's states changing fastest, then the
last GIVEN's, …, the first GIVEN's slowest. Tags are read in any case. Documents with a
DTD or entity declarations are refused (no entity can expand). Each definition becomes one
factor over (FOR, GIVEN…) with the child's axis first, as `read_bif` makes them."""

from __future__ import annotations

import math
import os
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

from .bayes import check_network, check_rows
from .factor_graph import FactorGraph, FactorGraphError
from .tokens import MAX_FILE_BYTES, MAX_TABLE_ENTRIES


def _children(node: ElementTree.Element, tag: str) -> list[ElementTree.Element]:
    return [child for child in node if child.tag.upper() == tag]


def _text(node: ElementTree.Element, tag: str, where: str) -> str:
    found = _children(node, tag)
    if len(found) != 1 or not (found[0].text or "").strip():
        raise FactorGraphError(f"{where}: expected one <{tag}> with text")
    return (found[0].text or "").strip()


def read_xmlbif(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """Read an XMLBIF file into a factor graph, one factor per definition; refused with
    the file and what is wrong: malformed XML, a DTD, a variable that is not of type
    nature, unknown variables, tables of the wrong length or over `max_table_entries`,
    rows that do not sum to 1, and networks with a missing or doubled definition or a
    directed cycle."""
    path = Path(path)
    if not path.is_file():
        raise FactorGraphError(f"{path}: no such file")
    raw = path.read_bytes()[: MAX_FILE_BYTES + 1]
    if len(raw) > MAX_FILE_BYTES:
        raise FactorGraphError(f"{path}: more than the {MAX_FILE_BYTES:,} bytes read")
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise FactorGraphError(f"{path}: XML with a DTD or entities is not read")
    try:
        root = ElementTree.fromstring(raw)
    except (ElementTree.ParseError, LookupError, ValueError) as error:  # LookupError: encoding
        raise FactorGraphError(f"{path}: not well-formed XML: {error}") from None
    networks = _children(root, "NETWORK") if root.tag.upper() == "BIF" else []
    if len(networks) != 1:
        raise FactorGraphError(f"{path}: expected <BIF> holding one <NETWORK>")
    network = networks[0]
    states: dict[str, tuple[str, ...]] = {}
    for variable in _children(network, "VARIABLE"):
        name = _text(variable, "NAME", f"{path}: a <VARIABLE>")
        kind = variable.get("TYPE", variable.get("type", "nature")).lower()
        if kind != "nature":
            raise FactorGraphError(
                f"{path}: variable {name!r} is of type {kind}; only chance (nature) variables"
            )
        outcomes = tuple((o.text or "").strip() for o in _children(variable, "OUTCOME"))
        if not outcomes or len(set(outcomes)) != len(outcomes) or name in states:
            raise FactorGraphError(
                f"{path}: variable {name!r} declared twice, without "
                "outcomes, or with a repeated outcome"
            )
        states[name] = outcomes
    index = {name: i for i, name in enumerate(states)}
    families, factors = [], []
    for definition in _children(network, "DEFINITION"):
        child = _text(definition, "FOR", f"{path}: a <DEFINITION>")
        parents = [(g.text or "").strip() for g in _children(definition, "GIVEN")]
        where = f"{path}: definition of {child!r}"
        unknown = [v for v in (child, *parents) if v not in index]
        if unknown:
            raise FactorGraphError(f"{where} names undeclared variable {unknown[0]!r}")
        if len(set(parents)) != len(parents) or child in parents:
            raise FactorGraphError(f"{where} repeats a variable")
        shape = [len(states[p]) for p in parents] + [len(states[child])]
        if math.prod(shape) > max_table_entries:
            raise FactorGraphError(
                f"{where}: {math.prod(shape):,} entries, more than the "
                f"{max_table_entries:,} allowed"
            )
        text = _text(definition, "TABLE", where).split()
        if len(text) != math.prod(shape):
            raise FactorGraphError(
                f"{where}: {len(text)} table values, expected {math.prod(shape)}"
            )
        try:
            table = np.array([float(v) for v in text]).reshape(shape)
        except ValueError:
            raise FactorGraphError(f"{where}: table values must be numbers") from None
        if (table < 0).any() or not np.isfinite(table).all():
            raise FactorGraphError(f"{where}: negative or non-finite probabilities")
        check_rows(where, table)
        families.append((index[child], tuple(index[p] for p in parents)))
        factors.append(([index[child], *(index[p] for p in parents)], np.moveaxis(table, -1, 0)))
    check_network(str(path), list(states), families)
    return FactorGraph.build(
        [len(s) for s in states.values()],
        factors,
        list(states),
        source=str(path),
        states=list(states.values()),
    )
