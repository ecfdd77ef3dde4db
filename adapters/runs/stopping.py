"""Prompt stopping: on Linux the `substrates` command does its work in a worker process,
under a supervisor that does nothing else, so SIGTERM and SIGINT end a run within GRACE_S
even while a native library holds the worker's interpreter (Qiskit Aer simulates with the
GIL held: no Python code of the worker, a watchdog thread included, runs until it
returns).

The supervisor forwards SIGTERM (`kill`, `timeout`, SLURM and Kubernetes send it to one
process) and SIGINT, except where the command runs in a terminal's foreground: there
Ctrl-C reaches the whole process group, the worker included, and once is enough. A
worker still alive GRACE_S after the signal is killed; the supervisor then marks its runs
`interrupted`, with how far they came (the worker reports both: `lifetime.report_to`),
and leaves with 143 or 130, as a shell reports a process stopped by the signal. The worker
dies with the supervisor (PR_SET_PDEATHSIG): a SIGKILL of the command leaves no orphan.
Elsewhere the command runs in one process and stops where Python can raise.

Example, a script whose work stops within a second of SIGTERM (as `substrates` does it):

    import sys
    from substrates.adapters.runs.lifetime import terminating
    from substrates.adapters.runs.stopping import run_supervised

    def work() -> int:
        with terminating():
            ...  # the long computation
        return 0

    sys.exit(run_supervised(work))  # both processes leave here, each with its status
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from .folder import RunFolder
from .lifetime import Terminated, mark_ended, report_to, runs_of

GRACE_S = 1.0
"""After SIGTERM or SIGINT, how long the worker has to stop by itself (s)."""
EXIT_CODES = {signal.SIGTERM: 143, signal.SIGINT: 130}
"""The exit status of a command stopped by each signal (128 + its number, as shells say)."""
POLL_S = 0.02
"""How often the supervisor looks at its worker (s)."""
REAP_S = 0.2
"""How long the supervisor waits for a killed worker to be reaped before it goes on (s)."""


@dataclass
class _Reports:
    """What the worker has told its supervisor: its run roots and its latest progress."""

    roots: set[Path] = field(default_factory=set)
    completed: dict[str, str] = field(default_factory=dict)
    pending: bytes = b""

    def read(self, readable: int) -> None:
        """Take in the whole JSON lines waiting on the pipe."""
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(readable, 65536):
                self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if "out" in message:
                    self.roots.add(Path(message["out"]))
                if "completed" in message:
                    self.completed = dict(message["completed"])

    def mark(self, worker: int, error: BaseException) -> None:
        """Mark the worker's runs still `running` under its roots as ended by `error`."""
        for root in self.roots:
            for path in runs_of(root, worker):
                folder = RunFolder(path)
                with contextlib.suppress(OSError, ValueError):
                    if folder.read_record("provenance.json").get("status") == "running":
                        mark_ended(folder, error, self.completed)


def run_supervised(work: Callable[[], int], grace_s: float = GRACE_S) -> int:
    """`work()`'s exit status, computed in a forked worker process on Linux (elsewhere in
    this one: macOS forbids forking a process whose frameworks have started threads).
    Returns in both processes: the worker returns what `work` returned, the supervisor the
    worker's status, or 143/130 when a signal stopped it."""
    if not sys.platform.startswith("linux"):
        return work()
    readable, writable = os.pipe()
    received: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    forwarded = {signal.SIGTERM} if _in_foreground() else {signal.SIGTERM, signal.SIGINT}
    previous = {sent: signal.signal(sent, note) for sent in EXIT_CODES}  # no window
    sys.stdout.flush()
    sys.stderr.flush()
    supervisor = os.getpid()
    worker = os.fork()
    if worker == 0:
        os.close(readable)
        for sent, handler in previous.items():
            signal.signal(sent, handler)
        _die_with(supervisor)
        report_to(writable)
        return work()
    os.close(writable)
    reports = _Reports()
    try:
        status, forced = _watch(worker, readable, received, grace_s, reports, forwarded)
    finally:
        os.close(readable)
        for sent, handler in previous.items():
            signal.signal(sent, handler)
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code  # killed by signal N: 128 + N, as shells say
    if received:
        sent = signal.Signals(received[0])
        error: BaseException = (
            Terminated(sent.name) if sent == signal.SIGTERM else KeyboardInterrupt()
        )
        reports.mark(worker, error)
        if forced:
            word = "terminated" if sent == signal.SIGTERM else "interrupted"
            print(f"{word} (the run did not stop within {grace_s:g} s)", file=sys.stderr)
        return code if code == 0 else EXIT_CODES[sent]
    if status and os.WIFSIGNALED(status):  # a crash or the kernel's OOM killer
        name = signal.Signals(os.WTERMSIG(status)).name
        reports.mark(worker, RuntimeError(f"the worker process was killed by {name}"))
    return code


def _watch(
    worker: int,
    readable: int,
    received: list[int],
    grace_s: float,
    reports: _Reports,
    forwarded: set[signal.Signals],
) -> tuple[int, bool]:
    """Wait for the worker, taking in its reports: (its wait status, whether it had to be
    killed)."""
    os.set_blocking(readable, False)
    deadline: float | None = None
    while True:
        done, status = os.waitpid(worker, os.WNOHANG)
        reports.read(readable)
        if done:
            return status, False
        if received and deadline is None:
            deadline = time.monotonic() + grace_s
            if received[0] in forwarded:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker, received[0])
        if deadline is not None and time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)
            # the kernel may take seconds to free a large worker: do not wait for it
            # (the marks are written whether or not it has been reaped yet)
            reaped = _reap(worker, REAP_S)
            reports.read(readable)
            return (int(signal.SIGKILL) if reaped is None else reaped), True  # 9: killed by 9
        time.sleep(POLL_S)


def _reap(worker: int, within_s: float) -> int | None:
    """The wait status of `worker` once it has ended, or None if it has not within `within_s`
    (a process left unreaped is reaped by init)."""
    deadline = time.monotonic() + within_s
    while True:
        done, status = os.waitpid(worker, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(POLL_S)


def _in_foreground() -> bool:
    """Whether this process group is its terminal's foreground group (Ctrl-C reaches it)."""
    try:
        terminal = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False  # no controlling terminal: a batch job, a service, a test
    try:
        return os.tcgetpgrp(terminal) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(terminal)


def _die_with(supervisor: int) -> None:
    """Have the kernel SIGKILL this worker when its supervisor dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != supervisor:  # it died before prctl took effect
        os._exit(EXIT_CODES[signal.SIGTERM])
