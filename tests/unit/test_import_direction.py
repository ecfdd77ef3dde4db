"""DESIGN.md's direction of imports: CLI -> adapters -> models -> backends/*/base.py <- impls;
datasets is used by all and uses none of them; the studies stand beside the CLI, on
adapters. Inside the package, imports are relative, so a tool that reads the checkout
follows them to the file they name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = ("backends", "models", "datasets", "adapters")


def _imports(folder: str) -> list[tuple[Path, str]]:
    """(file, absolute module name) for every substrates import in a top-level folder."""
    found = []
    for path in (REPO / folder).rglob("*.py"):
        package = ["substrates", *path.relative_to(REPO).parent.parts]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                names = [f"{module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found += [(path, n) for n in names if n.startswith("substrates.")]
    return found


def _layer(module: str) -> str:
    return module.split(".")[1]


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        ("backends", {"models", "adapters", "cli", "studies"}),
        ("datasets", {"backends", "models", "adapters", "cli", "studies"}),
        ("models", {"adapters", "cli", "studies"}),
        ("adapters", {"cli", "testing", "studies"}),
        ("testing", {"cli", "studies"}),
        # the studies run methods through adapters, as users do, and sit beside the CLI
        ("studies", {"cli", "testing"}),
    ],
)
def test_no_import_against_the_direction(folder: str, forbidden: set[str]) -> None:
    bad = [(str(p), m) for p, m in _imports(folder) if _layer(m) in forbidden]
    assert bad == []


def test_models_use_only_backend_interfaces() -> None:
    allowed_tails = ("base", "errors")
    bad = []
    for path, module in _imports("models"):
        parts = module.split(".")
        if parts[1] != "backends":
            continue
        if not any(tail in parts[2:] for tail in allowed_tails):
            bad.append((str(path), module))
    assert bad == []


def test_checker_sees_relative_imports() -> None:
    modules = {m for _, m in _imports("backends")}
    assert "substrates.backends.quantum.base.QuantumBackend" in modules


def test_the_cli_reaches_methods_through_adapters() -> None:
    """The command line uses adapters, datasets and the backends' interfaces (base, errors,
    registry), never a model or a backend implementation directly."""
    interfaces = ("base", "errors", "registry")
    bad = []
    for path, module in _imports("cli"):
        parts = module.split(".")
        if parts[1] == "models" or (
            parts[1] == "backends" and not any(tail in parts[2:] for tail in interfaces)
        ):
            bad.append((str(path), module))
    assert bad == []


def test_package_code_imports_itself_relatively() -> None:
    """`from substrates.x import y` inside the package would hide the import from tools that
    read the checkout (the root is the package, so only relative names resolve to files)."""
    absolute = []
    for folder in ("cli", "testing", *LAYERS, "hardware_configs"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    continue
                absolute += [(str(path), n) for n in names if n.split(".")[0] == "substrates"]
    assert absolute == []
