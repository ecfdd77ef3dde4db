"""`substrates sweep`: run every item of a grid on an executor, committing each as it
finishes; a rerun of the same command resumes."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import SubstratesError
from ..config.executor import load_executor_config
from ..config.load import load_config
from ..methods import Method, get_method
from ..runs.provenance import now
from .executors import make_executor
from .grid import Item, fingerprint
from .items import run_item
from .lock import driving
from .store import SweepFolder

MAX_CRASHES = 3
"""An item running each time its worker died this often is recorded as failed."""
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
    method: str,
    items: list[Item],
    *,
    executor: str | Path,
    out: str | Path,
    grid: dict[str, Any],
    retry_failed: bool = False,
    progress: Progress | None = None,
    where: str | Path = "grid",
) -> SweepReport:
    """Run the items not yet committed (and, with retry_failed, those that failed). Before
    anything runs, every item's parameters are checked by the method, and the configs and
    files they name are opened; `where` names the grid in those errors. One driver per
    folder: a second one is refused while the first lives."""
    declared = get_method(method)
    validated = [
        declared.validated(item.parameters, where=f"{where}: item {item.parameters}: ")
        for item in items
    ]
    check_inputs(declared, validated)
    config = load_executor_config(executor)
    identity = fingerprint(method, items)
    SweepFolder.check(out, identity)  # refuses another sweep's folder before writing into it
    with make_executor(config) as pool:  # a scheduler that cannot be reached: no folder
        Path(out).mkdir(parents=True, exist_ok=True)
        with driving(Path(out)) as token:
            held = SweepFolder.check(out, identity)
            record = {"grid": grid, "executor": config.to_dict()}
            store = SweepFolder.open(out, method, identity, record, items, held)
            tally = _Tally(store, items, retry_failed, progress)
            todo = list(tally.todo)
            while todo:
                lost = _run(pool, store, method, todo, token, tally)
                todo = tally.requeue(lost)
                if todo:
                    pool.renew()  # the pool broke (a worker died): a new one
            store.combine(items)
            tally.write_manifest(finished_at=now())
    return SweepReport(
        store,
        len(items),
        tally.already_done,
        tally.how["executed"],
        tally.how["collected"],
        tally.how["reused"],
        tally.errors,
    )


def _run(
    pool: Any, store: SweepFolder, method: str, todo: list[Item], token: str, tally: _Tally
) -> list[Item]:
    """Submit `todo`, record each outcome; returns the items lost with a broken pool."""
    futures = {
        pool.submit(run_item, str(store.path), method, i.id, i.parameters, token): i for i in todo
    }
    lost = []
    for future in pool.completed(futures):
        outcome = _outcome(future)
        if outcome["status"] == "lost":
            lost.append(futures[future])
        else:
            tally.record(futures[future], outcome)
    return lost


def _outcome(future: Any) -> dict[str, Any]:
    try:
        return dict(future.result())
    except BrokenExecutor:  # a worker of the local pool died: the item is lost, not failed
        return {"status": "lost"}
    except Exception as error:  # Dask gave up on the item (it killed workers repeatedly)
        return {"status": "failed", "error": f"{type(error).__name__}: {error}", "traceback": ""}


def check_inputs(method: Method[Any], validated: list[Any]) -> None:
    """Open every config the items name, each distinct one once, before any item runs: a
    bad config is one line now, not a failure per item later (the parameters' validation
    has checked every file they name)."""
    checked: set[tuple[str, str]] = set()
    inputs = method.inputs()
    for parameters in validated:
        for name in (name for name, kind in inputs.items() if kind == "config"):
            value = getattr(parameters, name)
            if value is not None and (name, str(value)) not in checked:
                checked.add((name, str(value)))
                load_config(value)  # a ConfigError names the file and field


class _Tally:
    """What is done, running and failed; records failures and the manifest as items end."""

    def __init__(
        self, store: SweepFolder, items: list[Item], retry: bool, progress: Progress | None
    ) -> None:
        self.store, self.items, self.progress = store, items, progress
        self.done, failed = store.done(), store.failed()  # read once; then kept up to date
        self.todo = [i for i in items if i.id not in self.done and (retry or i.id not in failed)]
        waiting = {i.id for i in self.todo}
        self.errors = {k: v["error"] for k, v in failed.items() if k not in self.done | waiting}
        self.attempts = {k: v.get("attempts", 1) for k, v in failed.items()}
        self.already_done = len(self.done)
        self.how = {"executed": 0, "collected": 0, "reused": 0}
        self.crashes: dict[str, int] = {}
        self.running = len(self.todo)
        self.written = 0.0
        self.write_manifest()
        self.report()

    def requeue(self, lost: list[Item]) -> list[Item]:
        """Items lost with a broken pool go again, unless committed meanwhile; one that was
        running when a worker died is charged a crash, and after MAX_CRASHES it fails."""
        again = []
        for item in lost:
            if self.store.fragment(item.id).is_file():
                self.record(item, {"status": "done", "how": "already committed"})
                continue
            if self.store.was_started(item.id):
                self.crashes[item.id] = self.crashes.get(item.id, 0) + 1
                if self.crashes[item.id] >= MAX_CRASHES:
                    self.record(
                        item,
                        {
                            "status": "failed",
                            "traceback": "",
                            "error": f"its worker died {MAX_CRASHES} times while running it",
                        },
                    )
                    continue
                self.store.clear_started(item.id)
            again.append(item)
        return again

    def record(self, item: Item, outcome: dict[str, Any]) -> None:
        self.running -= 1
        if outcome["status"] == "abandoned":
            raise SubstratesError(
                f"{self.store.path}: another driver took the sweep over; this one stops"
            )
        if outcome["status"] == "done":
            self.done.add(item.id)
            # committed meanwhile by an earlier execution still running: a completed run too
            self.how[outcome["how"].replace("already committed", "reused")] += 1
        else:
            self.attempts[item.id] = self.attempts.get(item.id, 0) + 1
            self.errors[item.id] = outcome["error"]
            self.store.record_failure(
                item.id, outcome["error"], outcome["traceback"], self.attempts[item.id]
            )
        if time.monotonic() - self.written >= MANIFEST_EVERY_S:
            self.write_manifest()
        self.report()

    def write_manifest(self, **extra: Any) -> None:
        self.store.write_manifest(self.items, self.done, set(self.errors), **extra)
        self.written = time.monotonic()

    def report(self) -> None:
        if self.progress:
            self.progress(len(self.done), self.running, len(self.errors))
