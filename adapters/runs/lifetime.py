"""A run's life as its folder tells it: who runs it (host, pid, process start), a heartbeat
while it runs, and `interrupted` or `failed` when it ends early, so a dead run never reads
as running.

`terminating()` turns SIGTERM (what `timeout`, SLURM and Kubernetes send) into an exception
like Ctrl-C's; `supervised(out)` keeps the heartbeat of the runs this process starts under
`out` and marks those still running when the block ends by an exception; `liveness(record)`
tells a running record whose process is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Literal

from .folder import RunFolder

HEARTBEAT_S = 10.0
"""How often a running run touches its heartbeat file (s)."""
STALE_S = 6 * HEARTBEAT_S
"""A heartbeat older than this, from another host, means the run is gone (s)."""
HEARTBEAT_FILE = ".heartbeat"


class Terminated(BaseException):
    """SIGTERM arrived: the process is asked to stop (raised in the main thread)."""


@contextlib.contextmanager
def terminating() -> Iterator[None]:
    """Inside, SIGTERM raises Terminated in the main thread (outside it, the default)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signal.Signals(signum).name)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def whoami() -> dict[str, Any]:
    """host, pid and the process's start time: enough to tell, later, whether it lives."""
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "process_start": _start_time(os.getpid()),
    }


def _start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot), None where unknown: with
    the pid it names one process, even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else fields[19]  # a zombie has ended


@contextlib.contextmanager
def supervised(out: Path, completed: dict[str, str] | None = None) -> Iterator[None]:
    """While the block runs, the run folders this process creates under `out` get a
    heartbeat; if the block ends by an exception, each of them still `running` is marked
    `interrupted` (Ctrl-C, SIGTERM) or `failed`, with the error and the time, and with
    `completed`: how far each counted task had come (task -> 'done/total'). Under the
    command's supervisor (`stopping`), `out` is announced to it, which marks these runs
    if it has to stop this process."""
    _report({"out": str(Path(out).resolve())})
    before = set(out.iterdir()) if out.is_dir() else set()
    stop = threading.Event()
    beat = threading.Thread(target=_beat, args=(out, before, stop), daemon=True)
    beat.start()
    try:
        yield
    except BaseException as error:
        for path in _ours(out, before):
            mark_ended(RunFolder(path), error, completed or {})
        raise
    finally:
        stop.set()
        beat.join()
        _drop_heartbeats(out, before)


def runs_of(out: Path, pid: int, before: frozenset[Path] | set[Path] = frozenset()) -> list[Path]:
    """Run folders under `out`, other than those in `before`, that process `pid` of this
    host runs."""
    found = []
    for path in set(out.iterdir()) - before if out.is_dir() else ():
        with contextlib.suppress(OSError, ValueError):
            record = RunFolder(path).read_record("provenance.json")
            if record.get("pid") == pid and record.get("host") == socket.gethostname():
                found.append(path)
    return found


def _ours(out: Path, before: set[Path]) -> list[Path]:
    """Run folders under `out` that appeared since `before` and that this process runs."""
    return runs_of(out, os.getpid(), before)


def _drop_heartbeats(out: Path, before: set[Path]) -> None:
    """An ended run's heartbeat says nothing more: removed, so a finished folder holds only
    what the run wrote."""
    for path in _ours(out, before):
        with contextlib.suppress(OSError, ValueError):
            if RunFolder(path).read_record("provenance.json").get("status") != "running":
                (path / HEARTBEAT_FILE).unlink(missing_ok=True)


def _beat(out: Path, before: set[Path], stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT_S):
        for path in _ours(out, before):
            with contextlib.suppress(OSError):
                (path / HEARTBEAT_FILE).touch()


def mark_ended(folder: RunFolder, error: BaseException, completed: dict[str, str]) -> None:
    """A run still `running` becomes `interrupted` (a signal) or `failed` (any other
    `error`), with `completed`, how far each task came; a complete run is left alone."""
    try:
        record = folder.read_record("provenance.json")
    except (OSError, ValueError):
        return
    if record.get("status") == "complete":
        return
    if record.get("status") == "running":
        interrupted = isinstance(error, KeyboardInterrupt | Terminated)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        record.update(
            status="interrupted" if interrupted else "failed",
            error=f"{type(error).__name__}: {error}",
            finished_at=stamp,
        )
    if completed:
        record["completed"] = dict(completed)
    with contextlib.suppress(OSError):
        folder.write_json("provenance.json", record)


Liveness = Literal["alive", "dead", "unknown"]


def liveness(record: dict[str, Any], heartbeat: Path) -> Liveness:
    """Whether the process that wrote `record` (host, pid, process_start) still runs: on
    this host by its pid and start time, elsewhere by the age of `heartbeat` (a file it
    touches every HEARTBEAT_S while it lives)."""
    host, pid = record.get("host"), record.get("pid")
    if host is None or pid is None:
        return "unknown"  # written before records said who wrote them
    if host == socket.gethostname():
        started = _start_time(int(pid))
        if started is None:
            return "dead"
        recorded = record.get("process_start")
        return "alive" if recorded is None or recorded == started else "dead"
    try:
        last = heartbeat.stat().st_mtime
    except OSError:
        return "dead"
    return "alive" if time.time() - last < STALE_S else "dead"


_reports: dict[str, Any] = {"fd": None, "sent": 0.0}
"""Where this process, a supervised worker (see `stopping`), tells its supervisor the
roots of its runs and how far they came; and when it last did (monotonic s)."""
REPORT_EVERY_S = 0.2
"""How often at most a worker reports its progress to its supervisor (s)."""


def report_to(fd: int | None) -> None:
    """Send this process's reports (JSON lines) to the pipe `fd` (None: nowhere)."""
    _reports["fd"] = fd


def _report(message: dict[str, Any]) -> None:
    if _reports["fd"] is not None:
        with contextlib.suppress(OSError, TypeError, ValueError):
            os.write(_reports["fd"], (json.dumps(message) + "\n").encode())


class Tracked:
    """A Progress that remembers how far each task came (task -> 'done/total'), for the
    record of a run that stops early, and passes every report on to `inner`."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = inner
        self.state: dict[str, str] = {}

    def __call__(self, task: str, done: int, total: int | None, /, **status: float) -> None:
        self.state[task] = f"{done}/{total}" if total is not None else str(done)
        if _reports["fd"] is not None and time.monotonic() - _reports["sent"] > REPORT_EVERY_S:
            _reports["sent"] = time.monotonic()
            _report({"completed": self.state})
        if self.inner is not None:
            self.inner(task, done, total, **status)
