"""What one method declares: its name, its help, its parameters and how it runs.

`substrates run METHOD`, `substrates sweep METHOD` and `substrates.run(METHOD, ...)` all
read the same declaration, so a method is added once: a module in this package holding a
`Method` (see `qrim.py` for a complete one). The parameters are a pydantic model whose
fields carry their help and command-line spellings; the command line, a sweep's grid file
and a Python call are all validated by it, with the same messages.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from ...backends.base import Backend
from ...errors import OptionError
from .summary import Entry, flat

if TYPE_CHECKING:
    from ..runs.folder import RunFolder
    from ..runs.progress import Progress
    from ..runs.run import Run
    from .lifecycle import CollectFunction, RunFunction


SEED_MAX = 2**32 - 1
"""Seeds are 0 … 2^32 − 1: what every generator the methods use accepts."""


class MethodParameters(BaseModel):
    """Base of every method's parameters: unknown names are errors, values are converted
    and checked by their field types and constraints (a command line's strings too; no
    infinite or NaN numbers), and a parameter declared `input="file"` must name a file or
    folder that exists."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*")
    @classmethod
    def _file_exists(cls, value: object, info: ValidationInfo) -> object:
        extra = cls.model_fields[str(info.field_name)].json_schema_extra
        named = isinstance(extra, dict) and extra.get("input") == "file"
        if named and value is not None and not Path(str(value)).exists():
            raise ValueError(f"{value}: no such file or folder")
        return value


def option(
    default: Any,
    help: str,
    *,
    flags: Sequence[str] = (),
    metavar: str | None = None,
    group: str | None = None,
    input: Literal["config", "file"] | None = None,
    **constraints: Any,
) -> Any:
    """A parameter's field.

    help: one sentence for `--help` and the reference docs, with units; flags: the
    command-line spellings (default `--name-with-dashes`); metavar: the placeholder in
    `--help`; group: parameters of the same group exclude each other on the command line;
    input: the value names a config (or a shipped config's name) or a file (or folder),
    which a sweep opens before any item runs; constraints: pydantic's (ge, gt, le, ...).
    """
    extra: dict[str, Any] = {}
    if input:
        extra["input"] = input
    if flags:
        extra["flags"] = list(flags)
    if metavar:
        extra["metavar"] = metavar
    if group:
        extra["group"] = group
    return Field(default, description=help, json_schema_extra=extra or None, **constraints)


P = TypeVar("P", bound=MethodParameters)


@dataclass(frozen=True)
class Method(Generic[P]):
    """One method, as every front end sees it.

    name: as typed after `substrates run`; help: one line for listings; description and
    epilog: `--help`'s text; parameters: the model of its parameters; run: gives the run
    function (imported when called: implementations are heavy), which takes the validated
    parameters and a RunContext and returns an Outcome (lifecycle.py: the framework opens,
    times, records and completes the run folder); backends: parameter name → the backend
    interface its config must select (the first is the run's main backend); overrides:
    parameter → (backend parameter, option) it sets when given (`recording` → the
    `path` of `hardware`); report: what a person reads after a run (the command line
    prints it); collect: gives the function that finishes an interrupted run in place from
    the hardware jobs it recorded (`substrates jobs collect`), None where the method
    journals no jobs; summary: each figure of the run's summary with its label, unit and
    format (summary.json, the printed report, the reference docs); replays: a rerun of an
    interrupted run collects the jobs the
    earlier execution submitted, in order, for as long as its (seeded) requests repeat;
    sweep_rows: the rows a run adds to a sweep's table (default: its summary, flattened).
    """

    name: str
    help: str
    description: str
    parameters: type[P]
    run: Callable[[], RunFunction]
    backends: Mapping[str, type[Backend]]
    report: Callable[[Run], str] = lambda run: summary_report(run)
    epilog: str | None = None
    overrides: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    collect: Callable[[], CollectFunction] | None = None
    replays: bool = False
    summary: Sequence[Entry] = ()
    sweep_rows: Callable[[Run], list[dict[str, Any]]] = lambda run: [flatten(run.summary)]

    def __repr__(self) -> str:
        """One line: `<Method crn-validate: compile a factor graph to ...>` (the generated
        repr printed every parameter model, summary entry and lambda: kilobytes)."""
        return f"<Method {self.name}: {self.help}>"

    def execute(
        self,
        parameters: P,
        out: Path,
        progress: Progress | None = None,
        replay: Sequence[Mapping[str, Any]] = (),
    ) -> RunFolder:
        """Run the method with validated `parameters`; returns the run folder it wrote. The
        folder has a heartbeat while the run lives, and ends `interrupted` or `failed`,
        never `running`, if the run stops early at any step. `replay`: see `replays`."""
        from .lifecycle import execute

        return execute(self, parameters, Path(out), progress, replay)

    def inputs(self) -> dict[str, str]:
        """Parameter name → 'config' or 'file', for the parameters that name one."""
        found = {}
        for name, field_info in self.parameters.model_fields.items():
            extra = field_info.json_schema_extra
            if isinstance(extra, dict) and "input" in extra:
                found[name] = str(extra["input"])
        return found

    def flag(self, name: str) -> str:
        """The command line's spelling of the parameter `name` ('--window-ms')."""
        extra = self.parameters.model_fields[name].json_schema_extra
        flags = extra.get("flags") if isinstance(extra, dict) else None
        return str(flags[0]) if isinstance(flags, list) else f"--{name.replace('_', '-')}"

    def validated(self, values: Mapping[str, Any], where: str = "") -> P:
        """The parameters from `values`, or an OptionError naming the first bad one
        (`where` is put in front: a grid file, an item)."""
        try:
            return self.parameters.model_validate(dict(values))
        except ValidationError as error:
            if where:
                raise OptionError(f"{where}{explain(self, error)}") from None
            name, detail = _first(self, error)
            raise OptionError(detail, option=name or None) from None


def implementation(module: str, name: str) -> Callable[[], Any]:
    """A declaration's `run` or `collect`: the function `name` of `module` (relative to
    this package, '.qrim_run'), imported only when the method runs, so declarations, which
    every command line start reads, stay light."""

    def load() -> Any:
        return getattr(importlib.import_module(module, __package__), name)

    return load


def explain(method: Method[Any], error: ValidationError) -> str:
    """One line for a ValidationError of a method's parameters, naming the parameter:
    unknown names list the known ones, choices are listed."""
    name, detail = _first(method, error)
    return f"{name}: {detail}" if name else detail


def _first(method: Method[Any], error: ValidationError) -> tuple[str, str]:
    """The first refused parameter's name ('' for the model as a whole) and what is
    wrong with its value."""
    first = error.errors()[0]
    name = ".".join(str(part) for part in first["loc"])
    known = ", ".join(sorted(method.parameters.model_fields))
    if first["type"] == "extra_forbidden":
        return "", f"{name!r} is not an option of {method.name}; options: {known}"
    if first["type"] == "literal_error":
        allowed = first["ctx"]["expected"].replace("'", "")
        return name, f"invalid choice: {first['input']!r} (choose from {allowed})"
    return name, str(first["msg"]).removeprefix("Value error, ")


def summary_report(run: Run) -> str:
    """A run's summary, one line per figure in words with its unit (summary.json, written
    from the method's declared entries), then the folder: the report of methods whose
    summary says it all."""
    path = run.path / "summary.json"
    figures = json.loads(path.read_text()) if path.is_file() else []
    lines = [f"{figure['label']}: {figure['text']}" for figure in figures]
    return "\n".join([*lines, f"run folder: {run.path}"])


def flatten(record: dict[str, Any]) -> dict[str, Any]:
    """Nested dicts as dotted columns; lists and other non-scalars as JSON text."""
    return {name: _scalar(value) for name, value in flat(record).items()}


def _scalar(value: Any) -> Any:
    """A table cell: numpy scalars as Python's, None and scalars as they are, the rest as
    JSON text."""
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, default=str)
