"""A job store for runtime local mode, so fake-device jobs can be collected by id later.

IBM keeps a job's result on its servers; local mode keeps it only in the process that ran
it. This store plays the server's part: results are written with the runtime's own JSON
encoder under `$SUBSTRATES_LOCAL_JOBS` (default `~/.cache/substrates/local-jobs`) and kept
for RETENTION_DAYS.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import SubstratesError

if TYPE_CHECKING:
    from qiskit.primitives import PrimitiveResult


RETENTION_DAYS = 30


def store_dir() -> Path:
    """Folder holding finished local jobs."""
    default = Path.home() / ".cache" / "substrates" / "local-jobs"
    return Path(os.environ.get("SUBSTRATES_LOCAL_JOBS", default))


def keep(job: Any) -> None:
    """Wait for a local job and store its result under its id (atomically)."""
    text = json.dumps(job.result(), cls=_encoder())
    folder = store_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".part", delete=False) as handle:
        handle.write(text)
    os.replace(handle.name, folder / f"{job.job_id()}.json")
    _prune(folder)


def _encoder() -> type[json.JSONEncoder]:
    """The runtime's JSON encoder, also taking the plain dataclasses the client-side
    Estimator puts in its metadata (the servers send those as JSON already)."""
    from qiskit_ibm_runtime.json import RuntimeEncoder

    class Encoder(RuntimeEncoder):
        def default(self, obj: Any) -> Any:
            if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                return dataclasses.asdict(obj)
            return super().default(obj)

    return Encoder


def _prune(folder: Path) -> None:
    """Forget results older than RETENTION_DAYS."""
    cutoff = time.time() - RETENTION_DAYS * 86400
    for path in folder.glob("*.json"):
        with contextlib.suppress(FileNotFoundError):  # another process pruned it first
            if path.stat().st_mtime < cutoff:
                path.unlink()


def load(job_id: str) -> PrimitiveResult:
    """The stored result of local job `job_id`."""
    from qiskit_ibm_runtime.json import RuntimeDecoder

    path = store_dir() / f"{job_id}.json"
    if not path.is_file():
        raise SubstratesError(
            f"local job {job_id} has no stored result in {path.parent}: it was lost with the "
            "process that ran it; run again"
        )
    return json.loads(path.read_text(), cls=RuntimeDecoder)
