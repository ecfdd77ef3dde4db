"""Read hardware_configs/*.yaml: plain YAML, a pydantic envelope, the backend's own Options."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from ...backends.base import Backend, BackendOptions, Tier
from ...backends.registry import get_backend_class
from ...errors import UnknownBackendError
from .errors import ConfigError

M = TypeVar("M", bound=BaseModel)


class HardwareConfig(BaseModel):
    """The envelope every config file has; `options` is validated by the backend."""

    model_config = ConfigDict(extra="forbid")

    substrate: str
    backend: str
    options: dict[str, Any] = {}
    description: str | None = None


@dataclass(frozen=True)
class ResolvedConfig:
    """A config file whose backend exists and whose options are valid."""

    path: Path
    config: HardwareConfig
    backend_class: type[Backend]
    options: BackendOptions

    @property
    def tier(self) -> Tier:
        return self.backend_class.resolved_tier(self.options)

    def to_dict(self) -> dict[str, Any]:
        """The config as resolved: every option, defaults included."""
        return {
            "path": str(self.path),
            "substrate": self.config.substrate,
            "backend": self.config.backend,
            "tier": self.tier,
            "options": self.options.model_dump(mode="json"),
        }


def shipped_configs(kind: Literal["backend", "executor"] = "backend") -> dict[str, Path]:
    """Configs that ship with the package, by stem ('aer_statevector', ...): backend
    configs, or the sweep executor configs (those with an 'executor' field)."""
    folder = files("substrates.hardware_configs")
    found = {}
    for item in folder.iterdir():
        if item.name.endswith(".yaml"):
            is_executor = "executor" in (yaml.safe_load(item.read_text()) or {})
            if is_executor == (kind == "executor"):
                found[Path(item.name).stem] = Path(str(item))
    return found


def config_path(name_or_path: str | os.PathLike[str]) -> Path:
    """A file path as given, or the shipped config of that name (with or without .yaml)."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    if path.exists():
        raise ConfigError(path, None, "a folder, not a config file")
    shipped = {**shipped_configs(), **shipped_configs("executor")}
    if path.stem in shipped and path.parent == Path():
        return shipped[path.stem]
    raise ConfigError(
        path, None, f"no such file, nor a shipped config; shipped: {', '.join(sorted(shipped))}"
    )


def load_config(name_or_path: str | os.PathLike[str]) -> ResolvedConfig:
    """Parse and validate a config; every failure is a ConfigError naming file and field."""
    path = config_path(name_or_path)
    raw = read_yaml(path)
    if "executor" in raw:
        raise ConfigError(
            path,
            None,
            "an executor config: use it with `substrates sweep --executor`, not as hardware",
        )
    config = validated(path, HardwareConfig, raw, prefix="")
    try:
        backend_class = get_backend_class(config.backend)
    except UnknownBackendError as err:
        raise ConfigError(path, "backend", str(err)) from None
    if backend_class.substrate != config.substrate:
        raise ConfigError(
            path,
            "substrate",
            f"{config.backend!r} is a {backend_class.substrate!r} backend, "
            f"not {config.substrate!r}",
        )
    options = validated(path, backend_class.Options, config.options, prefix="options.")
    return ResolvedConfig(path, config, backend_class, options)


MAX_CONFIG_BYTES = 1 << 20
"""A config or grid file is a few lines; one over 1 MiB is refused unread."""


class _PlainLoader(yaml.SafeLoader):
    """yaml.safe_load without aliases: `*name` could expand a few bytes into gigabytes."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None,
                None,
                "aliases (*name) are not allowed in configs and grids",
                event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping whose keys are distinct: YAML forbids a repeated key, and PyYAML keeps
        the last one silently (`backend:` twice would pick the second backend)."""
        first_seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            with contextlib.suppress(TypeError):  # an unhashable key: yaml refuses it next
                first = first_seen.setdefault(key, key_node.start_mark)
                if first is not key_node.start_mark:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"duplicate key {key!r} (first on line {first.line + 1})",
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep)


def read_yaml(path: Path) -> dict[str, Any]:
    """A config file's mapping. A ConfigError names the line of a YAML error, and refuses a
    file that cannot be read, is not UTF-8, is over MAX_CONFIG_BYTES, uses aliases or is
    nested too deeply."""
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError(
                path, None, f"{size:,} bytes; a config or grid is at most {MAX_CONFIG_BYTES:,}"
            )
        data = path.read_bytes()
    except OSError as err:
        raise ConfigError(path, None, f"cannot be read: {err.strerror or err}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        bom = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        hint = " (it is UTF-16: save it as UTF-8)" if bom else ""
        raise ConfigError(path, None, f"not UTF-8 text{hint}") from None
    try:
        raw = yaml.load(text, Loader=_PlainLoader)
    except yaml.reader.ReaderError as err:  # a control character, e.g. NUL
        line = text.count("\n", 0, err.position) + 1
        column = err.position - (text.rfind("\n", 0, err.position) + 1) + 1
        raise ConfigError(
            path,
            None,
            f"not valid YAML (line {line}, column {column}): the control character "
            f"U+{_code(err.character):04X} is not allowed in YAML text",
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(path, None, f"not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise ConfigError(path, None, "nested too deeply to be a config") from None
    if not isinstance(raw, dict):
        raise ConfigError(path, None, "expected a mapping with 'substrate', 'backend', 'options'")
    return raw


def _code(character: int | str) -> int:
    """PyYAML reports a refused character by its code point (str readers) or byte."""
    return character if isinstance(character, int) else ord(character)


def validated(path: Path, model: type[M], data: Any, prefix: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        location = ".".join(str(p) for p in first["loc"])
        field = f"{prefix}{location}" if location else prefix.rstrip(".") or None
        raise ConfigError(path, field, _explain(model, first)) from None


def _explain(model: type[BaseModel], error: Any) -> str:
    """pydantic's message (which lists allowed values), plus the allowed fields for a typo."""
    if error["type"] == "extra_forbidden":
        return f"unknown field; allowed: {', '.join(model.model_fields)}"
    return str(error["msg"]).removeprefix("Value error, ")
