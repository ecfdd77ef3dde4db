"""Registry names -> backend classes, through the `substrates.backends` entry points.

Loading a class imports only our own thin module; heavy libraries are imported by the
backend when it first computes.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ..errors import BackendUnavailableError, UnknownBackendError
from .base import Backend, Tier

GROUP = "substrates.backends"


@cache
def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names(substrate: str | None = None) -> list[str]:
    """Every registered backend name, sorted; optionally only one substrate's."""
    found = sorted(_entry_points())
    return [n for n in found if substrate is None or n.split(".", 1)[0] == substrate]


def get_backend_class(name: str) -> type[Backend]:
    """The class registered under `name`; unknown names suggest the closest match."""
    points = _entry_points()
    if name not in points:
        close = difflib.get_close_matches(name, points, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownBackendError(
            f"unknown backend {name!r}{hint} Known: {', '.join(sorted(points))}"
        )
    cls = points[name].load()
    if getattr(cls, "name", None) != name:
        raise UnknownBackendError(f"entry point {name!r} loads {cls!r}, whose name differs")
    return cls


def create_backend(name: str, options: dict[str, Any] | None = None) -> Backend:
    """Build the backend `name` with `options`; raises BackendUnavailableError if it can't run."""
    return get_backend_class(name)(options)


@dataclass(frozen=True)
class BackendStatus:
    """One row of `substrates backends`: tier None when the backend's class could not be
    imported (the reason says why)."""

    name: str
    substrate: str
    tier: Tier | None
    usable: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status(name: str) -> BackendStatus:
    """Whether `name` can run here with its default options, and if not, why. A plugin
    whose module cannot even be imported is listed with the import error."""
    try:
        cls = get_backend_class(name)
    except ImportError as err:
        return BackendStatus(
            name, name.split(".", 1)[0], None, False, f"cannot import its module: {err}"
        )
    try:
        problem = cls.unavailability(cls.Options.model_construct())
        reason = "usable" if problem is None else problem.reason
    except BackendUnavailableError as err:
        reason = err.reason
    return BackendStatus(name, cls.substrate, cls.tier, reason == "usable", reason)


def list_backends(substrate: str | None = None) -> list[BackendStatus]:
    """Every registered backend with its status."""
    return [status(n) for n in names(substrate)]
