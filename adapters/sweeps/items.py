"""One sweep item, as a worker runs it: skip it if committed, collect its hardware jobs if an
earlier execution submitted them, else run the method; then commit its rows."""

from __future__ import annotations

import importlib
import json
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from substrates.adapters.runs.folder import RunFolder
from substrates.adapters.runs.journal import recorded_jobs

from .store import SweepFolder

RUNNERS: dict[str, str] = {
    "qrim": "substrates.adapters.runs.qrim_run:run_qrim",
    "crn-validate": "substrates.adapters.runs.crn_validate_run:run_crn_validate",
    "cml-reconstruct": "substrates.adapters.runs.cml_reconstruct_run:run_cml_reconstruct",
    "sample": "substrates.adapters.runs.sample_run:run_sample",
    "event-layers": "substrates.adapters.runs.event_layers_run:run_event_layers",
}
"""Sweepable methods: `substrates run` method name → its run function."""


def runner(method: str) -> Callable[..., Any]:
    """The run function of a sweepable method (imported on first use)."""
    module, name = RUNNERS[method].split(":")
    return getattr(importlib.import_module(module), name)


def run_item(out: str, method: str, item: str, parameters: dict[str, Any],
             arguments: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """Run one item (on a worker) and commit its rows; returns what happened. Failures are
    returned, not raised, so the driver records them with their traceback."""
    store = SweepFolder(out)
    if store.fragment(item).is_file():
        return {"item": item, "status": "done", "how": "already committed"}
    began = time.perf_counter()
    try:
        folder, result, how = _resume(method, store.runs(item), arguments)
        if folder is None:
            outcome = runner(method)(**arguments, out=store.runs(item))
            folder, result = outcome if isinstance(outcome, tuple) else (outcome, None)
        rows = _rows(folder, result)
        wall = time.perf_counter() - began
        context = {"item": item, **parameters,
                   "run_folder": str(folder.path.relative_to(store.path)),
                   "wall_time_s": round(wall, 3)}  # fmt: skip
        table = pa.Table.from_pylist([{**context, **_prefixed(row, context)} for row in rows])
        store.commit(item, table)
    except Exception as error:  # every failure is recorded by the driver, never dropped
        return {"item": item, "status": "failed", "error": f"{type(error).__name__}: {error}",
                "traceback": traceback.format_exc()}  # fmt: skip
    return {"item": item, "status": "done", "how": how or "executed"}


def _resume(method: str, runs: Path, arguments: dict[str, Any]) -> tuple[Any, Any, str | None]:
    """What an earlier execution of this item left: a complete run ('reused': its rows are
    committed as they are), or hardware jobs it submitted ('collected' by id: `sample`
    fetches them, `qrim` reruns and collects them in order instead of resubmitting).
    (None, None, None) otherwise."""
    earlier = sorted(runs.iterdir()) if runs.is_dir() else []
    for path in reversed(earlier):
        folder = RunFolder(path)
        if not folder.file("provenance.json").is_file():
            continue
        record = folder.read_json("provenance.json")
        if record.get("status") == "complete":
            return folder, record.get("summary"), "reused"
        jobs = recorded_jobs(folder)
        if jobs and method == "sample":
            from substrates.adapters.runs.sample_run import collect

            return collect(path)[0], None, "collected"
        if jobs and method == "qrim":
            return *runner(method)(**arguments, out=runs, replay=jobs), "collected"
    return None, None, None


def _rows(folder: RunFolder, result: Any) -> list[dict[str, Any]]:
    """The rows an item contributes: its run's summary flattened to one row, or (sample)
    its results table."""
    if result is None:
        return folder.read_table("results.parquet").to_pylist()
    if not isinstance(result, dict):  # crn-validate's Validation
        from substrates.adapters.runs.crn_validate_run import summary

        result = summary(result)
    return [flatten(result)]


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted columns; lists and other non-scalars as JSON text."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, np.generic):
            out[name] = value.item()
        elif value is None or isinstance(value, bool | int | float | str):
            out[name] = value
        else:
            out[name] = json.dumps(value, default=str)
    return out


def _prefixed(row: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """Result columns, renamed result.<name> where a parameter has that name."""
    return {(f"result.{k}" if k in context else k): v for k, v in row.items()}
