"""The CRN substrate's file formats: FORMATS, the registry of its readers (datasets/formats.py).

>>> from substrates.datasets.crn.files import example_path, read_graph
>>> read_graph(example_path()).variables
8
"""

from __future__ import annotations

import os
from importlib.resources import files
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


def read_graph(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """A .fg (libDAI), .uai, .bif(.gz) or .xml/.xmlbif (XMLBIF) file; a factor of more
    than max_table_entries entries is refused before it is allocated. Every refusal is an
    InputFileError naming the file."""
    return FORMATS.read(path, max_table_entries=max_table_entries)
