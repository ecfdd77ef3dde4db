"""Every table of the README and the site renders as a table: each page is rendered with the
site's own Markdown extensions, and no paragraph may hold a row of bars (a table written
right under its caption line) nor any row a different number of cells than its header
(an unescaped |U| in a cell). `mkdocs build --strict` notices neither."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

markdown = pytest.importorskip("markdown")

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "docs" / "generated"  # the example gallery's pages, written by a build
PAGES = sorted(
    [REPO / "README.md", *(p for p in (REPO / "docs").rglob("*.md") if GENERATED not in p.parents)]
)
EXTENSIONS = ["admonition", "tables", "toc", "pymdownx.superfences"]


class Tables(HTMLParser):
    """Paragraph texts, and each table's rows as cell counts."""

    def __init__(self) -> None:
        super().__init__()
        self.paragraphs: list[str] = []
        self.tables: list[list[int]] = []
        self._in_paragraph = False
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self._in_paragraph, self._text = True, []
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append(0)
        elif tag in ("td", "th"):
            self.tables[-1][-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._in_paragraph:
            self.paragraphs.append("".join(self._text))
            self._in_paragraph = False

    def handle_data(self, data: str) -> None:
        if self._in_paragraph:
            self._text.append(data)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_table_renders_with_its_header_s_columns(page: Path) -> None:
    found = Tables()
    found.feed(markdown.markdown(page.read_text(encoding="utf-8"), extensions=EXTENSIONS))
    rows_of_bars = [
        line
        for text in found.paragraphs
        for line in text.splitlines()
        if line.lstrip().startswith("|") and line.count("|") >= 3
    ]
    assert not rows_of_bars, (
        f"a table rendered as text (a blank line before it?): {rows_of_bars[0]}"
    )
    for rows in found.tables:
        assert len(set(rows)) == 1, f"rows of {sorted(set(rows))} cells under one header: {rows}"
