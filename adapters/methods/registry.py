"""Every method's declaration, by name: the modules of this package that hold a METHOD, and
the methods other packages register under the `substrates.methods` entry-point group."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from ...errors import SubstratesError
from .method import Method

GROUP = "substrates.methods"


@cache
def methods() -> dict[str, Method[Any]]:
    """Name → declaration of every method, sorted by name. Declaration modules are small
    (parameters and help); a method's implementation is imported when it runs."""
    found: dict[str, Method[Any]] = {}
    package = __name__.rpartition(".")[0]
    for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if module.name.endswith("_run"):  # an implementation: imported when its method runs
            continue
        declared = getattr(importlib.import_module(f"{package}.{module.name}"), "METHOD", None)
        if isinstance(declared, Method):
            found[declared.name] = declared
    for point in entry_points(group=GROUP):
        declared = point.load()
        if not isinstance(declared, Method) or declared.name != point.name:
            raise SubstratesError(
                f"entry point {point.name!r} ({point.value}) is not a Method of that name"
            )
        if declared.name in found:
            raise SubstratesError(
                f"entry point {point.name!r} ({point.value}) would replace a method of substrates"
            )
        found[declared.name] = declared
    return dict(sorted(found.items()))


def get_method(name: str) -> Method[Any]:
    """The declaration of `name`; an unknown name suggests the closest known one."""
    known = methods()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SubstratesError(f"unknown method {name!r}{hint} Known: {', '.join(known)}")
    return known[name]


def list_methods() -> list[Method[Any]]:
    """Every method's declaration (name, help, parameters), sorted by name.

    Examples:
        >>> import substrates
        >>> [m.name for m in substrates.list_methods()][:3]
        ['cml-reconstruct', 'crn-validate', 'estimate']
    """
    return list(methods().values())
