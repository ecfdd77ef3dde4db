"""The ledger of looks: every run of a held-out case, appended as one JSON line with the
commit, a digest of the method's sources, the settings and the result.

A look is a distinct pair (sources digest, settings): rerunning the same code with the
same settings repeats a look (same number); a change to the method's files makes the
next run look n + 1. A held-out case that was looked at under other settings than today's
is no longer held out: the settings were chosen after that look, so the runner moves
it to development and says why (evaluation.md, section 3). Looks made before the ledger
existed are recorded with `origin` naming where they are written down and no settings:
they count, and move nothing.

    >>> import tempfile, pathlib
    >>> ledger = Ledger(pathlib.Path(tempfile.mkdtemp()) / "ledger.jsonl")
    >>> ledger.look("s", "seed-1", "abc", {"lambda": 1.0})
    1
    >>> ledger.append(Look.new("s", "seed-1", 1, "abc", {"lambda": 1.0}, {"pnp": 1.5}))
    >>> same, changed = ("abc", {"lambda": 1.0}), ("def", {"lambda": 1.0})
    >>> ledger.look("s", "seed-1", *same), ledger.look("s", "seed-1", *changed)
    (1, 2)
    >>> ledger.moved("s", "seed-1", {"lambda": 0.1}).startswith("looked at under lambda=1.0")
    True
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..adapters.runs.provenance import git_revision, now
from ..errors import InputFileError
from .declaration import digest


@dataclass(frozen=True)
class Look:
    """One run of a held-out case. settings None: a look from before the ledger."""

    study: str
    case: str
    look: int
    date: str
    commit: str | None
    sources: str | None
    settings: Mapping[str, Any] | None
    result: Mapping[str, float]
    origin: str = "runner"
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def new(
        cls,
        study: str,
        case: str,
        look: int,
        sources: str,
        settings: Mapping[str, Any],
        result: Mapping[str, float],
    ) -> Look:
        """A look made now, at this checkout's commit."""
        return cls(study, case, look, now(), git_revision(), sources, dict(settings), result)

    @property
    def key(self) -> tuple[str | None, str | None]:
        return self.sources, None if self.settings is None else digest(self.settings)


class Ledger:
    """The ledger file (JSON lines, appended; read whole)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def looks(self, study: str | None = None, case: str | None = None) -> list[Look]:
        """Every look recorded (of `study`, of its `case`), oldest first."""
        if not self.path.is_file():
            return []
        out = []
        for number, line in enumerate(self.path.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                look = Look(**json.loads(line))
            except (ValueError, TypeError) as error:
                raise InputFileError(
                    f"line {number} is not a look ({error}); restore the ledger from git",
                    path=self.path,
                ) from None
            if (study is None or look.study == study) and (case is None or look.case == case):
                out.append(look)
        return out

    def look(self, study: str, case: str, sources: str, settings: Mapping[str, Any]) -> int:
        """The number a run of `case` with these sources and settings is: a repeat keeps
        its look's number, anything new is one more than the looks so far."""
        seen = self.looks(study, case)
        key = (sources, digest(dict(settings)))
        for look in seen:
            if look.key == key:
                return look.look
        return max((look.look for look in seen), default=0) + 1

    def moved(self, study: str, case: str, settings: Mapping[str, Any]) -> str | None:
        """Why `case` is no longer held out (a look under other settings than these), or
        None while it is."""
        for look in self.looks(study, case):
            if look.settings is None or dict(look.settings) == dict(settings):
                continue
            changed = {k: v for k, v in look.settings.items() if settings.get(k) != v}
            shown = ", ".join(f"{k}={v}" for k, v in changed.items()) or "other settings"
            return (
                f"looked at under {shown} (look {look.look}, {look.date[:10]}, "
                f"{(look.commit or 'no commit')[:8]}), then the settings changed"
            )
        return None

    def append(self, look: Look) -> None:
        """Add `look` as one line, flushed to disk before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as handle:
            handle.write(json.dumps(asdict(look), sort_keys=True, default=str) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
