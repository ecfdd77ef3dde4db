"""The README's and the docs pages' commands run as written (`commands_on_pages.py` here
says how): the tables of exceptions checked against the pages, then the README,
getting-started, the quantum guide and two how-tos; `test_commands_guides.py` runs the
other pages, so that the two workers share them. Science lane: minutes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.science

HERE = ["README.md", "getting-started.md", "quantum.md", "sweep-on-a-cluster.md"]
HERE += ["write-a-config.md"]
"""The pages this file runs."""
GUIDES = Path(__file__).with_name("test_commands_guides.py")


def test_every_listed_line_is_on_a_page(pages: ModuleType) -> None:
    lines = {line for page in pages.PAGES for line in pages.commands(page)}
    for table in (pages.NOT_RUN, pages.SMALLER, pages.REFUSED_HERE):
        assert not set(table) - lines, f"listed, on no page: {set(table) - lines}"


def test_the_pages_hold_the_commands_a_reader_saves_and_runs(pages: ModuleType) -> None:
    tour = pages.commands(pages.REPO / "README.md")
    assert "substrates backends" in tour and len(tour) >= 10
    how_to = pages.REPO / "docs" / "how-to"
    sweep = pages.commands(how_to / "sweep-on-a-cluster.md")
    assert any(line.startswith("cat > grid.yaml <<") for line in sweep)
    assert "my_aer.yaml" in pages.saved_files(how_to / "write-a-config.md")
    quantum = pages.run_elsewhere(pages.REPO / "docs" / "substrates" / "quantum.md")
    assert quantum["substrates run sample"] == "README.md"


def test_the_two_files_run_every_page_once(pages: ModuleType) -> None:
    there = [p.name for p in pages.PAGES if f'"{p.name}"' in GUIDES.read_text()]
    assert sorted(HERE + there) == sorted(p.name for p in pages.PAGES)
    assert not set(HERE) & set(there)


@pytest.mark.parametrize("name", HERE)
def test_every_command_on_the_page_runs_as_written(
    name: str, pages: ModuleType, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    pages.run_page(pages.page(name), tmp_path, request)
