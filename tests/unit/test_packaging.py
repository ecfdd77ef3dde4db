"""The package `substrates` is the repository root: every code folder is listed in pyproject
and imports as substrates.<folder>; nothing else (tests, benchmarks, docs) is installed."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODE = (
    "cli",
    "testing",
    "backends",
    "models",
    "datasets",
    "adapters",
    "studies",
    "hardware_configs",
)


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    found = {"substrates"}
    for folder in CODE:
        for init in (REPO / folder).rglob("__init__.py"):
            found.add(".".join(["substrates", *init.parent.relative_to(REPO).parts]))
    assert found == set(_setuptools()["packages"])


def test_the_root_is_the_package_and_holds_only_its_own_modules() -> None:
    assert _setuptools()["package-dir"] == {"substrates": "."}
    own = {"__init__.py", "__main__.py", "errors.py", "verdicts.py"}
    assert {p.name for p in REPO.glob("*.py")} == own
    assert (REPO / "py.typed").is_file() and (REPO / "__init__.pyi").is_file()
    top = {p.name for p in REPO.iterdir() if (p / "__init__.py").is_file()}
    assert top == set(CODE), "a top-level package folder that pyproject does not map"
