"""Backends: one interface per substrate, many implementations, found by registry name."""

from ..errors import (
    BackendUnavailableError,
    CapabilityError,
    SubstratesError,
    UnknownBackendError,
)
from .base import Backend, BackendOptions, Capabilities, Tier
from .registry import create_backend, get_backend_class, list_backends

__all__ = [
    "Backend",
    "BackendOptions",
    "BackendUnavailableError",
    "Capabilities",
    "CapabilityError",
    "SubstratesError",
    "Tier",
    "UnknownBackendError",
    "create_backend",
    "get_backend_class",
    "list_backends",
]
