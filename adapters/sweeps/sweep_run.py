"""`substrates sweep`: run every item of a grid on an executor, committing each as it
finishes; a rerun of the same command resumes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.executor import load_executor_config
from ..methods import get_method
from ..runs.provenance import now
from .executors import make_executor
from .grid import Item, fingerprint
from .items import run_item
from .store import SweepFolder

MANIFEST_EVERY_S = 1.0
"""The manifest is rewritten at most this often while items finish (s), and at the end."""

Progress = Callable[[int, int, int], None]
"""progress(done, running, failed) after every change."""


@dataclass(frozen=True)
class SweepReport:
    """Counts after the sweep: items, done before this call, and of those done now: executed,
    collected (hardware jobs fetched by id), reused (a run that had completed but was not
    committed); failed items with their errors, and the folder."""

    folder: SweepFolder
    items: int
    already_done: int
    executed: int
    collected: int
    reused: int
    failed: dict[str, str]


def run_sweep(
    method: str, items: list[Item], *, executor: str | Path, out: str | Path,
    grid: dict[str, Any], retry_failed: bool = False, progress: Progress | None = None,
    where: str | Path = "grid",
) -> SweepReport:  # fmt: skip
    """Run the items not yet committed (and, with retry_failed, those that failed). Every
    item's parameters are checked by the method before anything runs; `where` names the
    grid in those errors."""
    declared = get_method(method)
    for item in items:
        declared.validated(item.parameters, where=f"{where}: item {item.parameters}: ")
    config = load_executor_config(executor)
    identity = fingerprint(method, items)
    held = SweepFolder.check(out, identity)
    with make_executor(config) as pool:  # a scheduler that cannot be reached: nothing written
        record = {"grid": grid, "executor": config.to_dict()}
        store = SweepFolder.open(out, method, identity, record, items, held)
        tally = _Tally(store, items, retry_failed, progress)
        futures = {
            pool.submit(run_item, str(store.path), method, i.id, i.parameters): i
            for i in tally.todo
        }
        for future in pool.completed(futures):
            tally.record(futures[future], _outcome(future))
    store.combine(items)
    tally.write_manifest(finished_at=now())
    return SweepReport(store, len(items), tally.already_done, tally.how["executed"],
                       tally.how["collected"], tally.how["reused"], tally.errors)  # fmt: skip


def _outcome(future: Any) -> dict[str, Any]:
    try:
        return future.result()
    except Exception as error:  # the executor lost the item (its worker died too often)
        return {"status": "failed", "error": f"{type(error).__name__}: {error}", "traceback": ""}


class _Tally:
    """What is done, running and failed; records failures and the manifest as items end."""

    def __init__(self, store: SweepFolder, items: list[Item], retry: bool,
                 progress: Progress | None) -> None:  # fmt: skip
        self.store, self.items, self.progress = store, items, progress
        self.done, failed = store.done(), store.failed()  # read once; then kept up to date
        self.todo = [i for i in items if i.id not in self.done and (retry or i.id not in failed)]
        waiting = {i.id for i in self.todo}
        self.errors = {k: v["error"] for k, v in failed.items() if k not in self.done | waiting}
        self.attempts = {k: v.get("attempts", 1) for k, v in failed.items()}
        self.already_done = len(self.done)
        self.how = {"executed": 0, "collected": 0, "reused": 0}
        self.running = len(self.todo)
        self.written = 0.0
        self.write_manifest()
        self.report()

    def record(self, item: Item, outcome: dict[str, Any]) -> None:
        self.running -= 1
        if outcome["status"] == "done":
            self.done.add(item.id)
            # committed meanwhile by an earlier execution still running: a completed run too
            self.how[outcome["how"].replace("already committed", "reused")] += 1
        else:
            self.attempts[item.id] = self.attempts.get(item.id, 0) + 1
            self.errors[item.id] = outcome["error"]
            self.store.record_failure(item.id, outcome["error"], outcome["traceback"],
                                      self.attempts[item.id])  # fmt: skip
        if time.monotonic() - self.written >= MANIFEST_EVERY_S:
            self.write_manifest()
        self.report()

    def write_manifest(self, **extra: Any) -> None:
        self.store.write_manifest(self.items, self.done, set(self.errors), **extra)
        self.written = time.monotonic()

    def report(self) -> None:
        if self.progress:
            self.progress(len(self.done), self.running, len(self.errors))
