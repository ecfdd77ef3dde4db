"""One error family: every exception the package defines for its user's input belongs to
SubstratesError, which sits at the package root; the command line maps the whole family to
one line and exit 2, with no special case."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from substrates.errors import InputFileError, OptionError, SubstratesError

REPO = Path(__file__).resolve().parents[2]
CODE = ("adapters", "backends", "cli", "datasets", "models", "testing", "errors.py")
OUTSIDE = {
    "Terminated": "SIGTERM as an exception, a BaseException like KeyboardInterrupt",
    "_ParseTimeout": "SIGALRM's, turned into a CircuitFileError where it is caught",
    "FrameRangeWarning": "a warning (UserWarning), not an error: the simulation goes on",
}
"""Exceptions of the package that are not its user's errors, each with the reason."""


def _classes() -> dict[str, tuple[str, list[str]]]:
    """Every class defined in the package: name -> (file, base names)."""
    found = {}
    for folder in CODE:
        paths = [REPO / folder] if folder.endswith(".py") else (REPO / folder).rglob("*.py")
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef):
                    bases = [
                        b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases
                    ]
                    found[node.name] = (str(path.relative_to(REPO)), bases)
    return found


def test_every_exception_of_the_package_is_in_the_family() -> None:
    classes = _classes()

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            return True
        if name not in classes or name in seen:
            return False
        return any(is_exception(b, seen | {name}) for b in classes[name][1])

    def in_family(name: str) -> bool:
        return name == "SubstratesError" or any(
            in_family(b) for b in classes.get(name, ("", []))[1] if b in classes
        )

    outside = sorted(
        f"{classes[name][0]}: {name}"
        for name in classes
        if is_exception(name) and not in_family(name) and name not in OUTSIDE
    )
    assert outside == []
    assert all(is_exception(name) for name in OUTSIDE)


def test_the_family_lives_at_the_root_and_imports_nothing_of_the_package() -> None:
    tree = ast.parse((REPO / "errors.py").read_text())
    imported = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert imported == []
    assert not (REPO / "backends" / "errors.py").exists()


def test_a_reader_error_names_its_file_once() -> None:
    error = InputFileError("truncated header")
    assert str(error.about("a/run.raw")) == "a/run.raw: truncated header"
    assert str(error.about("b.raw")) == "a/run.raw: truncated header"  # the first file stays
    named = InputFileError("a/run.raw: truncated header", path="a/run.raw")
    assert str(named) == "a/run.raw: truncated header" and named.path == Path("a/run.raw")


def test_an_option_error_names_the_option_in_the_callers_terms() -> None:
    error = OptionError("must be > 0", option="window_ms")
    assert str(error) == "window_ms: must be > 0" and error.option == "window_ms"
    error.option = "--window-ms"  # what the command line does before printing
    assert str(error) == "--window-ms: must be > 0"


@pytest.mark.parametrize(
    "error",
    [
        InputFileError("bad bytes", path="x.raw"),
        OptionError("too small", option="--scenes"),
        SubstratesError("plain"),
    ],
)
def test_the_cli_prints_every_member_as_one_line(error: SubstratesError) -> None:
    from substrates.cli.failures import explain

    assert explain(error) == str(error)
    assert explain(ZeroDivisionError("a bug")) is None


def test_every_readers_error_is_in_the_family_at_run_time() -> None:
    from substrates.datasets.cml.errors import CMLDataError
    from substrates.datasets.crn.factor_graph import FactorGraphError
    from substrates.datasets.events.events import EventError
    from substrates.datasets.mea.recording import RecordingError
    from substrates.datasets.quantum.circuit_files import CircuitFileError

    readers = (CMLDataError, FactorGraphError, EventError, RecordingError, CircuitFileError)
    assert all(issubclass(kind, InputFileError) for kind in readers)
    assert all(issubclass(kind, ValueError) for kind in readers)  # `except ValueError` holds
