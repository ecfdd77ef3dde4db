"""Fixtures of the docs tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="session")
def pages() -> ModuleType:
    """commands_on_pages.py beside this file, loaded from its path (the test folders are
    no package): what the two docs-command tests share."""
    path = Path(__file__).with_name("commands_on_pages.py")
    spec = importlib.util.spec_from_file_location("commands_on_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
