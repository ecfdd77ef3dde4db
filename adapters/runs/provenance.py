"""provenance.json: what ran, on what, with which versions and seeds, and how long it took."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ...backends.base import Backend
from ..config.load import ResolvedConfig
from .lifetime import whoami

_DISTRIBUTIONS = (
    "substrates",
    "numpy",
    "pyarrow",
    "pydantic",
    "qiskit",
    "qiskit-aer",
    "qiskit-aer-gpu",
    "qiskit-ibm-runtime",
    "pennylane",
    "pennylane-lightning",
    "pennylane-lightning-gpu",
)


def package_versions() -> dict[str, str]:
    """Installed versions of the packages a run may depend on."""
    found = {}
    for name in _DISTRIBUTIONS:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def git_revision() -> str | None:
    """The commit of the substrates source tree, when it is a git checkout."""
    source = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def now() -> str:
    """UTC time, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def provenance(
    method: str, config: ResolvedConfig, backend: Backend, parameters: dict[str, Any]
) -> dict[str, Any]:
    """The record written before a run computes; `status` and timings are filled in later."""
    return {
        "method": method,
        "status": "running",
        "started_at": now(),
        **whoami(),
        "parameters": parameters,
        "config": config.to_dict(),
        "backend": backend.to_dict(),
        "versions": package_versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "git_revision": git_revision(),
        "argv": sys.argv,
    }
