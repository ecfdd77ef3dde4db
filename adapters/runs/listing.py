"""The run folders under a folder, as `substrates runs` lists them: a `running` record whose
process is gone reads `dead`, never `running`."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .folder import RunFolder
from .lifetime import HEARTBEAT_FILE, liveness

DEPTH = 4
"""How deep under the folder run folders are looked for (a sweep's are three down)."""


@dataclass(frozen=True)
class RunRow:
    """One run folder: path, method, status (complete, failed, interrupted, running, dead,
    or unknown: a running record from before runs said who ran them), age in seconds since
    it started, and the error of a run that ended early."""

    path: Path
    method: str
    status: str
    age_s: float | None
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "method": self.method,
            "status": self.status,
            "age_s": self.age_s,
            "error": self.error,
        }


def list_runs(root: str | os.PathLike[str]) -> list[RunRow]:
    """Every run folder under `root` (DEPTH levels at most), oldest first."""
    root = Path(root)
    rows = []
    for provenance in _provenance_files(root, DEPTH):
        folder = RunFolder(provenance.parent)
        try:
            record = folder.read_record("provenance.json")
        except (OSError, ValueError):
            rows.append(RunRow(folder.path, "?", "unreadable", None, None))
            continue
        status = record.get("status", "?")
        if status == "running":
            beat = folder.file(HEARTBEAT_FILE)
            alive = liveness(record, beat if beat.exists() else folder.file("provenance.json"))
            status = {"alive": "running", "dead": "dead", "unknown": "running?"}[alive]
        rows.append(
            RunRow(
                folder.path,
                record.get("method", "?"),
                status,
                _age_s(record.get("started_at")),
                record.get("error"),
            )
        )
    return sorted(rows, key=lambda r: -(r.age_s or 0))


def _provenance_files(root: Path, depth: int) -> list[Path]:
    if depth < 0 or not root.is_dir():
        return []
    here = root / "provenance.json"
    if here.is_file():
        return [here]
    found = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and not child.name.startswith("."):
            found += _provenance_files(child, depth - 1)
    return found


def _age_s(started: str | None) -> float | None:
    if not started:
        return None
    try:
        moment = datetime.datetime.fromisoformat(started)
    except ValueError:
        return None
    return (datetime.datetime.now(datetime.UTC) - moment).total_seconds()
