"""A run as its user reads it back: the folder, the summary, the results table."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from .folder import RunFolder


@dataclass(frozen=True)
class Run:
    """What one run wrote (`substrates run` and `substrates.run` make one).

    path: the run folder; method: the method's name; status: `complete`, `failed`,
    `running`; summary: the run's headline figures (units in the names), as in
    provenance.json; verdict: what a checking method concluded (`outcome`: valid, not
    valid or cannot tell; `line`; `checks`), None for other methods. `results` is
    results.parquet; `table(name)` reads any other table.

    Examples:
        >>> import substrates, tempfile
        >>> run = substrates.run("sample", shots=100, seed=1, out=tempfile.mkdtemp(),
        ...                      progress=False)
        >>> run.status, run.summary["shots"], run.results.column_names[:3]
        ('complete', 100, ['circuit', 'bitstring', 'count'])
    """

    path: Path
    method: str
    status: str
    summary: dict[str, Any]
    verdict: dict[str, Any] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Run:
        """The run written to `path` (a folder holding provenance.json)."""
        record = RunFolder.existing(path).read_record("provenance.json")
        summary, verdict = record.get("summary", {}), record.get("verdict")
        method, status = record.get("method", "?"), record.get("status", "?")
        return cls(Path(path), method, status, summary, verdict)

    @property
    def folder(self) -> RunFolder:
        return RunFolder(self.path)

    @property
    def provenance(self) -> dict[str, Any]:
        """provenance.json: config, backend, parameters, versions, seeds, timings."""
        return self.folder.read_record("provenance.json")

    @property
    def results(self) -> pa.Table:
        """results.parquet, the table of the run."""
        return self.table("results.parquet")

    def table(self, name: str) -> pa.Table:
        """Another Parquet table of the run folder, e.g. 'policy.parquet' of a QRIM run."""
        return self.folder.read_table(name)

    @property
    def files(self) -> list[str]:
        """Every file the run wrote, by name."""
        return sorted(p.name for p in self.path.iterdir() if not p.name.startswith("."))
