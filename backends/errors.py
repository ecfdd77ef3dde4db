"""The exceptions every layer raises; the CLI turns each into one line and exit code 2."""

from __future__ import annotations

from typing import Literal

UnavailableKind = Literal["missing-package", "no-gpu", "no-credentials", "no-device"]


class SubstratesError(Exception):
    """Base of all errors that are the user's input or environment, never a bug."""


class BackendUnavailableError(SubstratesError, ImportError):
    """A backend that exists but cannot run here; `reason` says why and how to fix it."""

    def __init__(self, backend: str, kind: UnavailableKind, reason: str) -> None:
        super().__init__(f"backend {backend!r} is unavailable: {reason}")
        self.backend = backend
        self.kind = kind
        self.reason = reason


class UnknownBackendError(SubstratesError, LookupError):
    """A registry name that no installed package provides."""


class CapabilityError(SubstratesError, ValueError):
    """A request that exceeds what the backend can do; raised before any compute."""
