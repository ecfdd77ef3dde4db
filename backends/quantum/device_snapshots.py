"""IBM device snapshots shipped in qiskit-ibm-runtime's fake provider, by name."""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator

if TYPE_CHECKING:
    from qiskit_ibm_runtime.fake_provider.fake_backend import FakeBackendV2


@cache
def _snapshot_classes() -> dict[str, type[FakeBackendV2]]:
    import warnings

    with warnings.catch_warnings():  # some snapshots warn that their values are not typical
        warnings.simplefilter("ignore", UserWarning)
        from qiskit_ibm_runtime.fake_provider import FakeProviderForBackendV2

        return {b.name: type(b) for b in FakeProviderForBackendV2().backends()}


def snapshot_names() -> tuple[str, ...]:
    """Names of every device snapshot, e.g. 'fake_brisbane' (imports qiskit-ibm-runtime)."""
    return tuple(sorted(_snapshot_classes()))


def _known_snapshot(name: str) -> str:
    if find_spec("qiskit_ibm_runtime") is None:
        return name  # the backend's availability check names the missing package
    if name not in _snapshot_classes():
        shown = ", ".join(snapshot_names()[:8])
        raise ValueError(f"unknown device snapshot {name!r}; known include {shown}, ...")
    return name


SnapshotName = Annotated[str, AfterValidator(_known_snapshot)]
"""An option holding the name of a fake device snapshot, checked against the installed list."""


def load_snapshot(name: str) -> FakeBackendV2:
    """A fresh fake backend called `name` (a real device's calibration snapshot)."""
    return _snapshot_classes()[name]()
