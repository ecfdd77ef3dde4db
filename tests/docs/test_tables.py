"""Every table of the README and the site renders as a table: each page is rendered with the
site's own Markdown extensions and read back by the docs hook's checks, the same ones that
warn (an error under `--strict`) for every page the site builds, generated ones included:
a table written right under its caption line becomes a paragraph of bars in the HTML
(`unrendered_tables`), and an unescaped |U| in a cell makes a row longer than its header,
whose end Markdown drops (`overfull_rows`, on the source). Markdown notices neither."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

markdown = pytest.importorskip("markdown")
pytest.importorskip("mkdocs")

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "docs" / "generated"  # the example gallery's pages, written by a build
PAGES = sorted(
    [REPO / "README.md", *(p for p in (REPO / "docs").rglob("*.md") if GENERATED not in p.parents)]
)
EXTENSIONS = ["admonition", "tables", "toc", "pymdownx.superfences"]


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    """The site's hook module, loaded from its file as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def render(text: str) -> str:
    return markdown.markdown(text, extensions=EXTENSIONS)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_table_renders_with_its_header_s_columns(page: Path, hooks: ModuleType) -> None:
    text = page.read_text(encoding="utf-8")
    assert hooks.unrendered_tables(render(text)) == []
    assert hooks.overfull_rows(text) == []


CAPTIONED = "Caption line:\n| a | b |\n|---|---|\n| 1 | 2 |\n"
BARRED = "| n | formula |\n|---|---|\n| 1 | \\|U\\| |\n| 2 | |U| |\n"


@pytest.mark.parametrize(
    ("broken", "mended", "problem"),
    [
        (CAPTIONED, CAPTIONED.replace(":\n", ":\n\n"), "rendered as text"),
        (BARRED, BARRED.replace(" |U| ", " \\|U\\| "), "a row of 4 cells under a header of 2"),
    ],
    ids=["under-a-caption", "unescaped-bar"],
)
def test_the_build_warns_of_a_table_that_did_not_render(
    broken: str, mended: str, problem: str, hooks: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_path="broken.md"))
    with caplog.at_level(logging.WARNING, logger="mkdocs"):  # the build's two events
        built = hooks.on_page_markdown(broken, page=page, config={}, files=None)
        html = render(built)
        assert hooks.on_page_content(html, page=page, config={}, files=None) == html
    assert [record.name for record in caplog.records] == ["mkdocs.plugins.substrates"]
    assert "broken.md" in caplog.text and problem in caplog.text
    assert hooks.unrendered_tables(render(mended)) == [] == hooks.overfull_rows(mended)
