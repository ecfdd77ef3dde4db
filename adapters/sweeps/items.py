"""One sweep item, as a worker runs it: skip it if committed, collect its hardware jobs if an
earlier execution submitted them, else run the method; then commit its rows."""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..methods import Method, get_method
from ..methods.lifecycle import collect
from ..runs.folder import RunFolder
from ..runs.journal import recorded_jobs
from ..runs.run import Run
from .lock import holds
from .store import SweepFolder


def run_item(
    out: str, method: str, item: str, parameters: dict[str, Any], token: str
) -> dict[str, Any]:
    """Run one item (on a worker) and commit its rows; returns what happened. Failures are
    returned, not raised, so the driver records them with their traceback. `token` is the
    driver's: an item whose driver no longer holds the sweep is neither run nor committed."""
    store = SweepFolder(out)
    if store.fragment(item).is_file():
        return {"item": item, "status": "done", "how": "already committed"}
    if not holds(store.path, token):
        return {"item": item, "status": "abandoned"}
    store.started(item)
    began = time.perf_counter()
    try:
        declared = get_method(method)
        validated = declared.validated(parameters)
        folder, how = _resume(declared, validated, store.runs(item))
        if folder is None:
            folder, how = declared.execute(validated, store.runs(item), None), "executed"
        wall = time.perf_counter() - began
        context = {
            "item": item,
            **parameters,
            "run_folder": str(folder.path.relative_to(store.path)),
            "wall_time_s": round(wall, 3),
        }
        run = Run.open(folder.path)
        if run.verdict is not None:  # a checking method: its outcome beside every row
            context["verdict"] = run.verdict["outcome"]
        rows = declared.sweep_rows(run)
        table = pa.Table.from_pylist([{**context, **_prefixed(row, context)} for row in rows])
        if not holds(store.path, token):
            return {"item": item, "status": "abandoned"}
        store.commit(item, table)
    except Exception as error:  # every failure is recorded by the driver, never dropped
        return {
            "item": item,
            "status": "failed",
            "error": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc(),
        }
    return {"item": item, "status": "done", "how": how}


def _resume(method: Method[Any], parameters: Any, runs: Path) -> tuple[RunFolder | None, str]:
    """What an earlier execution of this item left: a complete run ('reused': its rows are
    committed as they are), or hardware jobs it submitted ('collected' by id, by the
    method's collect, or by a rerun that replays them). (None, '') otherwise."""
    earlier = sorted(runs.iterdir()) if runs.is_dir() else []
    for path in reversed(earlier):
        folder = RunFolder(path)
        if not folder.file("provenance.json").is_file():
            continue
        if folder.read_record("provenance.json").get("status") == "complete":
            return folder, "reused"
        jobs = recorded_jobs(folder)
        if jobs and method.collect is not None:
            return collect(method, folder.path)[0], "collected"
        if jobs and method.replays:
            return method.execute(parameters, runs, replay=jobs), "collected"
    return None, ""


def _prefixed(row: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """Result columns, renamed result.<name> where a parameter has that name."""
    return {(f"result.{k}" if k in context else k): v for k, v in row.items()}
