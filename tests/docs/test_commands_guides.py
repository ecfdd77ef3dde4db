"""The commands of the MEA, events, CML and CRN guides and of the how-tos on backends and
IBM jobs run as written (`commands_on_pages.py` here says how; `test_commands.py` runs the
other pages). Science lane: minutes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.science

HERE = ["mea.md", "events.md", "cml.md", "crn.md", "write-a-backend.md", "collect-ibm-jobs.md"]
"""The pages this file runs."""


@pytest.mark.parametrize("name", HERE)
def test_every_command_on_the_page_runs_as_written(
    name: str, pages: ModuleType, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    pages.run_page(pages.page(name), tmp_path, request)
