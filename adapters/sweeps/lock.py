"""One driver per sweep folder: OUT/driver.lock, made with an exclusive create, holding who
drives (host, pid, process start, a random token) and touched while the driver lives.

A second driver is refused while the holder is alive; a stale lock (its process gone on
this host, or its heartbeat older than STALE_S from another host) is taken over. Workers
carry the token: an item whose driver no longer holds the lock is neither started nor
committed, and a local pool's worker stops when its driver dies (so a killed driver's pool
cannot race a resumed one).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import SubstratesError
from ..runs.lifetime import HEARTBEAT_S, liveness, whoami

LOCK = "driver.lock"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _alive(path: Path, holder: dict[str, Any]) -> bool:
    """Whether the holder drives still (its process on this host; else its heartbeat,
    which is the lock file's mtime)."""
    return liveness(holder, path) != "dead"


@contextlib.contextmanager
def driving(folder: Path) -> Iterator[str]:
    """Hold the sweep folder's lock for the block; yields the driver's token. Refused with
    one line while another live driver holds it; a dead driver's lock is taken over."""
    path = folder / LOCK
    mine = {**whoami(), "token": secrets.token_hex(8), "since": time.time()}
    for _ in range(3):
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _read(path)
            if holder is not None and _alive(path, holder):
                raise SubstratesError(
                    f"{folder} is being swept by pid {holder.get('pid')} on "
                    f"{holder.get('host')} (since {time.ctime(holder.get('since', 0))}); wait "
                    f"for it, or stop it, then rerun"
                ) from None
            path.unlink(missing_ok=True)  # stale: the next exclusive create takes it over
            continue
        with os.fdopen(descriptor, "w") as handle:
            json.dump(mine, handle)
        break
    else:
        raise SubstratesError(f"{folder}: another driver keeps taking the lock; rerun")
    stop = threading.Event()
    beat = threading.Thread(target=_beat, args=(path, stop), daemon=True)
    beat.start()
    try:
        yield str(mine["token"])
    finally:
        stop.set()
        if (_read(path) or {}).get("token") == mine["token"]:
            path.unlink(missing_ok=True)


def _beat(path: Path, stop: threading.Event) -> None:
    while not stop.wait(HEARTBEAT_S):
        with contextlib.suppress(OSError):
            path.touch()


def holds(folder: Path, token: str) -> bool:
    """Whether the driver with `token` still holds the sweep folder's lock."""
    return (_read(folder / LOCK) or {}).get("token") == token


def watch_parent(driver: int) -> None:
    """In a worker of the local pool: end this process as soon as its parent, the driver
    with pid `driver`, is gone (a SIGKILLed driver would otherwise leave its workers
    computing, and submitting hardware jobs, beside a resumed driver). The driver's pid
    comes from the driver itself: a driver killed while this worker was still starting
    has already left it to another parent by the time this runs."""

    def check() -> None:
        while os.getppid() == driver:
            time.sleep(1.0)
        os._exit(3)  # the driver is gone: its items are redone by the next driver

    threading.Thread(target=check, daemon=True, name="substrates-driver-watch").start()
