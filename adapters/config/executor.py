"""Executor configs (hardware_configs/cluster_*.yaml): where a sweep's items run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import ConfigError
from .load import config_path, read_yaml, validated


class ExecutorConfig(BaseModel):
    """The envelope of an executor config; `options` is validated per executor."""

    model_config = ConfigDict(extra="forbid")

    executor: Literal["local", "dask"]
    options: dict[str, Any] = {}
    description: str | None = None


class LocalOptions(BaseModel):
    """workers: 1 runs the items one by one in this process; more, in a process pool."""

    model_config = ConfigDict(extra="forbid")

    workers: int = Field(1, ge=1, le=512)


class DaskOptions(BaseModel):
    """address: a running scheduler (tcp://host:8786, or a dask-jobqueue / Kubernetes
    cluster's scheduler address); None starts a LocalCluster of `workers` processes with
    `threads_per_worker` threads each. connect_timeout_s: how long to wait for the
    scheduler, up to an hour (a scheduler not up by then is not coming)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    address: str | None = None
    workers: int = Field(2, ge=1, le=512)
    threads_per_worker: int = Field(1, ge=1, le=64)
    connect_timeout_s: float = Field(10.0, gt=0, le=3600)


@dataclass(frozen=True)
class ResolvedExecutor:
    """An executor config with valid options."""

    path: Path
    kind: Literal["local", "dask"]
    options: LocalOptions | DaskOptions

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "executor": self.kind,
            "options": self.options.model_dump(mode="json"),
        }


def load_executor_config(name_or_path: str | Path) -> ResolvedExecutor:
    """Parse and validate an executor config (a file, or a shipped name like cluster_local)."""
    path = config_path(name_or_path)
    raw = read_yaml(path)
    if "executor" not in raw:
        raise ConfigError(
            path,
            "executor",
            "missing: an executor config names 'local' or "
            "'dask' (this looks like a hardware config)",
        )
    config = validated(path, ExecutorConfig, raw, prefix="")
    options: LocalOptions | DaskOptions
    if config.executor == "local":
        options = validated(path, LocalOptions, config.options, "options.")
    else:
        options = validated(path, DaskOptions, config.options, "options.")
    return ResolvedExecutor(path, config.executor, options)
