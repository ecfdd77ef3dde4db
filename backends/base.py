"""What every backend of every substrate shares: name, tier, options, availability."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.util import find_spec
from typing import ClassVar, Literal, Self, TypedDict

from pydantic import BaseModel, ConfigDict

from ..errors import BackendUnavailableError, UnavailableKind

Tier = Literal["simulator", "gpu", "hardware"]


class BackendOptions(BaseModel):
    """Options of one backend, validated from a config's `options:` block.

    Unknown fields are errors, and so are infinite or NaN numbers (`.inf`, `.nan` in YAML).
    Options never hold secrets: tokens come from the environment or the vendor's
    saved-account mechanism.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do; each substrate extends this with its own limits."""


@dataclass(frozen=True)
class Unavailability:
    """Why a backend cannot run here."""

    kind: UnavailableKind
    reason: str


class BackendRecord(TypedDict):
    """What recreates a backend: its registry name and its options (JSON; no secrets)."""

    backend: str
    options: dict[str, object]


class Backend(ABC):
    """One implementation of one substrate's interface.

    Subclasses set the class attributes below; the registry finds them by `name`.
    Per-call settings (shots, seed, duration, dt) travel in the calls, not here.
    """

    name: ClassVar[str]
    substrate: ClassVar[str]
    tier: ClassVar[Tier]
    Options: ClassVar[type[BackendOptions]] = BackendOptions
    requires: ClassVar[tuple[str, ...]] = ()
    """Import names the backend needs; checked with find_spec, nothing is imported."""
    extra: ClassVar[str] = ""
    """The pip extra that brings `requires`, e.g. 'quantum'."""
    install: ClassVar[str] = ""
    """The command that brings `requires` (default: pip install 'substrates[extra]'); a
    plugin names its own package here."""

    def __init__(self, options: BackendOptions | Mapping[str, object] | None = None) -> None:
        self.options = self.Options.model_validate(
            options.model_dump() if isinstance(options, BackendOptions) else (options or {})
        )
        problem = self.unavailability(self.options)
        if problem is not None:
            raise BackendUnavailableError(self.name, problem.kind, problem.reason)

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        """Why this backend cannot run here with these options, or None if it can."""
        missing = [module for module in cls.requires if find_spec(module) is None]
        if missing:
            command = cls.install or f"pip install 'substrates[{cls.extra}]'"
            return Unavailability(
                "missing-package", f"missing Python package {missing[0]!r}: {command}"
            )
        return None

    @classmethod
    def resolved_tier(cls, options: BackendOptions) -> Tier:
        """The tier these options select (a device name can make a simulator a GPU tier)."""
        return cls.tier

    @property
    @abstractmethod
    def capabilities(self) -> Capabilities:
        """Limits checked by `validate` before any compute or hardware time is spent."""

    def to_dict(self) -> BackendRecord:
        """Registry name and options, enough to recreate this backend (no secrets)."""
        return {"backend": self.name, "options": self.options.model_dump(mode="json")}

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> Self:
        """Recreate a backend from `to_dict()` output."""
        if record.get("backend") != cls.name:
            raise ValueError(f"record is for {record.get('backend')!r}, not {cls.name!r}")
        options = record.get("options", {})
        if not isinstance(options, Mapping):
            raise ValueError(f"record's options are {type(options).__name__}, not a mapping")
        return cls(options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.options.model_dump()}>"
