"""Each subpackage of datasets/ and models/ exports its public nouns lazily from a stub (as
the front door does): importing it loads nothing heavy, every name in its stub resolves to
the object its module defines, and `__all__` is the stub's list."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUBPACKAGES = sorted(
    str(stub.parent.relative_to(REPO)).replace("/", ".")
    for folder in ("datasets", "models")
    for stub in (REPO / folder).glob("*/__init__.pyi")
)


def test_every_subpackage_with_modules_has_a_stub() -> None:
    with_modules = sorted(
        str(init.parent.relative_to(REPO)).replace("/", ".")
        for folder in ("datasets", "models")
        for init in (REPO / folder).glob("*/__init__.py")
    )
    assert with_modules == SUBPACKAGES and len(SUBPACKAGES) == 12


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_stub_name_is_the_modules_own_object(name: str) -> None:
    package = importlib.import_module(f"substrates.{name}")
    stub = ast.parse((REPO / name.replace(".", "/") / "__init__.pyi").read_text())
    listed = []
    for node in stub.body:
        if isinstance(node, ast.ImportFrom):
            module = importlib.import_module(f"substrates.{name}.{node.module}")
            for alias in node.names:
                assert getattr(package, alias.name) is getattr(module, alias.name)
                listed.append(alias.name)
    assert sorted(package.__all__) == sorted(listed) and set(dir(package)) >= set(listed)


def test_importing_the_subpackages_loads_nothing_heavy() -> None:
    code = (
        "import sys\n"
        + "".join(f"import substrates.{name}\n" for name in SUBPACKAGES)
        + "print(sorted(m for m in ('torch', 'jax', 'qiskit', 'scipy', 'numba', 'xarray')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
