"""Sweep grids (YAML): the parameters to vary, the seeds, the constants; expanded into
items, each with an id that depends only on its parameters."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..config.errors import ConfigError
from ..config.load import read_yaml, validated


class GridFile(BaseModel):
    """parameters: option → list of values (the sweep is their product); seeds: a list, or
    N for 0..N−1 (crossed with the parameters); fixed: option → one value for every item."""

    model_config = ConfigDict(extra="forbid")

    method: str | None = None
    parameters: dict[str, list[Any]] = Field(default_factory=dict)
    seeds: list[int] | int | None = None
    fixed: dict[str, Any] = Field(default_factory=dict)
    description: str | None = None


@dataclass(frozen=True)
class Item:
    """One run of the sweep: its id and its parameters (options of the method)."""

    id: str
    parameters: dict[str, Any]


MAX_ITEMS = 1_000_000
"""The most items one sweep may hold (each is a run folder and a fragment)."""


def item_id(parameters: dict[str, Any]) -> str:
    """12 hex digits of the SHA-1 of the parameters as canonical JSON."""
    text = json.dumps(parameters, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def load_grid(path: str | Path, method: str) -> tuple[GridFile, list[Item]]:
    """The grid file and its items; errors name the file and the field."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(path, None, "no such grid file")
    grid = validated(path, GridFile, read_yaml(path), prefix="")
    if grid.method is not None and grid.method != method:
        raise ConfigError(path, "method", f"the grid is for {grid.method!r}, not {method!r}")
    for name, values in grid.parameters.items():
        if not values:
            raise ConfigError(path, f"parameters.{name}", "an empty list of values")
    seed_count = grid.seeds if isinstance(grid.seeds, int) else len(grid.seeds or [None])
    if (isinstance(grid.seeds, int) and grid.seeds < 1) or any(s < 0 for s in _listed(grid.seeds)):
        raise ConfigError(path, "seeds", "a count ≥ 1, or a list of seeds ≥ 0")
    total = math.prod(len(values) for values in grid.parameters.values()) * seed_count
    if total > MAX_ITEMS:
        raise ConfigError(
            path,
            "parameters",
            f"{total:,} items; a sweep holds at most {MAX_ITEMS:,} (split it into several)",
        )
    both = sorted(set(grid.parameters) & set(grid.fixed))
    if both:
        raise ConfigError(path, "fixed", f"{both} also vary under 'parameters'")
    seeds = list(range(grid.seeds)) if isinstance(grid.seeds, int) else grid.seeds
    if seeds is not None and "seed" in {*grid.parameters, *grid.fixed}:
        raise ConfigError(path, "seeds", "give seeds either here or as the parameter 'seed'")
    names = list(grid.parameters)
    items, seen = [], set()
    for values in itertools.product(*(grid.parameters[n] for n in names)):
        for seed in seeds if seeds is not None else [None]:
            parameters = {**grid.fixed, **dict(zip(names, values, strict=True))}
            if seed is not None:
                parameters["seed"] = seed
            identity = item_id(parameters)
            if identity in seen:
                raise ConfigError(path, "parameters", f"the item {parameters} appears twice")
            seen.add(identity)
            items.append(Item(identity, parameters))
    return grid, items


def _listed(seeds: list[int] | int | None) -> list[int]:
    return seeds if isinstance(seeds, list) else []


def fingerprint(method: str, items: list[Item]) -> str:
    """Identifies a sweep: the method and the set of its items."""
    text = json.dumps([method, sorted(item.id for item in items)])
    return hashlib.sha1(text.encode()).hexdigest()[:16]
