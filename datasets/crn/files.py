"""The CRN substrate's file formats: FORMATS, the registry of its readers (datasets/formats.py).

>>> from substrates.datasets.crn.files import example_path, read_graph
>>> read_graph(example_path()).variables
8
"""

from __future__ import annotations

import os
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path

from ..formats import Format, Formats
from .bif import read_bif
from .factor_graph import FactorGraph, FactorGraphError
from .libdai_fg import read_fg
from .tokens import MAX_TABLE_ENTRIES
from .uai import read_uai
from .xmlbif import read_xmlbif

FORMATS: Formats[FactorGraph] = Formats(
    "factor graph",
    [
        Format("fg", "libDAI", (".fg",), read_fg),
        Format("uai", "UAI", (".uai",), read_uai),
        Format("bif", "BIF", (".bif", ".bif.gz"), read_bif),
        Format("xmlbif", "XMLBIF", (".xml", ".xmlbif"), read_xmlbif),
    ],
    error=FactorGraphError,
)
"""The factor-graph formats; each reader takes (path, max_table_entries=...)."""


def example_path(name: str = "asia.uai") -> Path:
    """A factor graph shipped with the package (default: the Asia network, UAI BAYES)."""
    return Path(str(files("substrates.datasets.crn") / "examples" / name))


def pgmpy_networks() -> dict[str, Path]:
    """The Bayesian networks pgmpy's wheel ships (alarm, andes, …, win95pts), name → BIF
    file; empty where pgmpy is not installed. pgmpy is found, not imported (its import
    takes seconds)."""
    spec = find_spec("pgmpy")
    if spec is None or spec.origin is None:
        return {}
    folder = Path(spec.origin).parent / "utils" / "example_models"
    return {path.name.removesuffix(".bif.gz"): path for path in folder.glob("*.bif.gz")}


def graph_path(name: str) -> Path:
    """The file a graph is named by: a path that exists is itself; otherwise a graph
    shipped with the package ('asia' or 'asia.uai') or one of pgmpy's networks where
    pgmpy is installed ('alarm' or 'alarm.bif.gz'). A name none of them holds comes back
    as given, for the caller to refuse.

    >>> graph_path("asia").name
    'asia.uai'
    """
    given = Path(name)
    if given.exists() or given.name != name:  # an existing file, or a path with folders
        return given
    ours = example_path(name if name.endswith(".uai") else f"{name}.uai")
    if ours.is_file():
        return ours
    return pgmpy_networks().get(name.removesuffix(".bif.gz"), given)


def read_graph(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """A .fg (libDAI), .uai, .bif(.gz) or .xml/.xmlbif (XMLBIF) file; a factor of more
    than max_table_entries entries is refused before it is allocated. Every refusal is an
    InputFileError naming the file."""
    return FORMATS.read(path, max_table_entries=max_table_entries)
