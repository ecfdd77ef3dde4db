"""The CRN substrate's file formats, by ending: one registry, beside its readers.

>>> from substrates.datasets.crn.files import example_path, read_graph
>>> read_graph(example_path()).variables
8
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

from ...errors import InputFileError
from .bif import read_bif
from .factor_graph import FactorGraph
from .libdai_fg import read_fg
from .tokens import MAX_TABLE_ENTRIES
from .uai import read_uai
from .xmlbif import read_xmlbif

READERS: dict[str, Callable[[Path, int], FactorGraph]] = {
    ".fg": read_fg,
    ".uai": read_uai,
    ".bif": read_bif,
    ".bif.gz": read_bif,
    ".xml": read_xmlbif,
    ".xmlbif": read_xmlbif,
}
"""File endings (case-insensitive) and their readers: (path, max_table_entries) → graph."""


def example_path(name: str = "asia.uai") -> Path:
    """A factor graph shipped with the package (default: the Asia network, UAI BAYES)."""
    return Path(str(files("substrates.datasets.crn") / "examples" / name))


def read_graph(
    path: str | os.PathLike[str], max_table_entries: int = MAX_TABLE_ENTRIES
) -> FactorGraph:
    """A .fg (libDAI), .uai, .bif(.gz) or .xml/.xmlbif (XMLBIF) file; a factor of more
    than max_table_entries entries is refused before it is allocated. Every refusal is an
    InputFileError naming the file."""
    path = Path(path)
    name = path.name.lower()
    ending = next((e for e in sorted(READERS, key=len, reverse=True) if name.endswith(e)), None)
    if ending is None:
        raise InputFileError(
            "unknown graph format; use .fg (libDAI), .uai (UAI), .bif/.bif.gz (BIF) or "
            ".xml/.xmlbif (XMLBIF)",
            path=path,
        )
    try:
        return READERS[ending](path, max_table_entries)
    except InputFileError as error:
        raise error.about(path) from None
