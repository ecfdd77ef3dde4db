"""A method's command-line options, made from its parameters model: each field becomes an
option with its help, default and choices; the values are checked by the model itself."""

from __future__ import annotations

import argparse
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..adapters.methods import Method
from ..errors import OptionError

_DEFAULT_OUT = "runs"


def add_method_parser(methods: argparse._SubParsersAction, method: Method[Any]) -> None:
    """`substrates run METHOD`'s parser: one option per parameter, plus --out."""
    parser = methods.add_parser(
        method.name, help=method.help, description=method.description, epilog=method.epilog
    )
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for name, field in method.parameters.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        flags = list(extra.get("flags") or [f"--{name.replace('_', '-')}"])
        target: Any = parser
        if group := extra.get("group"):
            if group not in groups:
                groups[group] = parser.add_mutually_exclusive_group()
            target = groups[group]
        settings: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS}
        if field.annotation is bool:
            settings["action"] = "store_false" if field.default else "store_true"
            settings["help"] = field.description
        else:
            choices = _choices(field.annotation)
            if choices:
                settings["choices"] = choices
            elif metavar := extra.get("metavar"):
                settings["metavar"] = metavar
            settings["help"] = _with_default(field.description or "", field.default)
        settings["help"] = settings["help"].replace("%", "%%")  # argparse formats help with %
        target.add_argument(*flags, **settings)
    parser.add_argument(
        "--out",
        default=_DEFAULT_OUT,
        metavar="DIR",
        help=f"folder for run folders (default: {_DEFAULT_OUT})",
    )
    parser.set_defaults(method=method.name)


def given_parameters(method: Method[Any], args: argparse.Namespace) -> dict[str, Any]:
    """The parameters the command line gave (the model supplies the others)."""
    fields = method.parameters.model_fields
    return {name: getattr(args, name) for name in fields if hasattr(args, name)}


def _choices(annotation: Any) -> list[str] | None:
    if typing.get_origin(annotation) is typing.Literal:
        return [str(value) for value in typing.get_args(annotation)]
    return None


def _with_default(text: str, default: Any) -> str:
    if default is None or default in ("", ()):
        return text
    if isinstance(default, tuple):
        default = ",".join(map(str, default))
    return f"{text} (default: {default})"


@contextmanager
def flags_in_errors(method: Method[Any]) -> Iterator[None]:
    """An OptionError raised inside names its parameter by the command line's flag
    (`--window-ms`), not by its Python name: the caller's terms."""
    try:
        yield
    except OptionError as error:
        if error.option is not None and error.option in method.parameters.model_fields:
            error.option = method.flag(error.option)
        raise
