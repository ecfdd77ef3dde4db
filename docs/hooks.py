"""MkDocs hook: the reference pages that are read off the code at build time, and a check
of every page's tables.

`<!-- generated: cli -->` becomes every command's `--help`, from the argparse parser the
`substrates` command runs; `<!-- generated: configs -->` becomes one table per backend,
from its pydantic Options model, and the shipped configs. Nothing here is written by hand,
so the pages cannot drift from the code. Every page is also read for tables that did not
render (a warning, so `mkdocs build --strict` fails on them).
"""

from __future__ import annotations

import argparse
import inspect
import logging
import re
import sys
import tempfile
import typing
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# MkDocs puts this folder first on sys.path, where `substrates/` holds the guides: with a
# plain (non-strict) editable install that folder would be imported as a namespace package
# in place of the installed one. The hook imports the package, never its own folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]
if getattr(sys.modules.get("substrates"), "__file__", "") is None:  # imported as namespace
    del sys.modules["substrates"]

from mkdocs.plugins import event_priority  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402

import substrates  # noqa: E402
from substrates.adapters.config.load import read_yaml, shipped_configs  # noqa: E402
from substrates.backends.registry import get_backend_class, names  # noqa: E402
from substrates.cli import build_parser  # noqa: E402

WIDTH = 100
log = logging.getLogger("mkdocs.plugins.substrates")  # under "mkdocs": --strict counts it


class _Paragraphs(HTMLParser):
    """A rendered page's paragraph texts."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._text: list[str] | None = None  # the open paragraph's text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._text is not None:
            self.texts.append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def unrendered_tables(html: str) -> list[str]:
    """Tables of a rendered page that came out as text: a paragraph holding a row of bars
    (a table written right under its caption line, with no blank line). One line per
    paragraph; empty when every table rendered."""
    found = _Paragraphs()
    found.feed(html)
    problems = []
    for text in found.texts:
        bars = [line.strip() for line in text.splitlines() if line.lstrip().startswith("|")]
        if any(line.count("|") >= 3 for line in bars):
            problems.append(f"a table rendered as text (a blank line before it?): {bars[0][:80]}")
    return problems


_FENCE = re.compile(r"^\s*(```|~~~)")
_BACKTICKS = re.compile(r"`+")


def _cells(row: str) -> int:
    """How many cells Markdown's table reads in `row`: bars split it, except a bar escaped
    as `\\|` or inside a code span (as Python-Markdown's tables extension reads it)."""
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    cells, i, fence = 1, 0, ""
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        if row[i] == "`":
            run = _BACKTICKS.match(row, i)
            assert run is not None
            ticks = run.group()
            fence = "" if fence == ticks else (fence or ticks)
            i += len(ticks)
            continue
        cells += row[i] == "|" and not fence
        i += 1
    return cells


def overfull_rows(markdown: str) -> list[str]:
    """Table rows with more cells than their header: Markdown drops the extra cells without
    a word, so an unescaped bar in a cell (`|U|`) shifts a row's text and loses its end.
    One line per row, with its line number in the page's source."""
    problems, header, fenced = [], 0, False
    for number, line in enumerate(markdown.splitlines(), start=1):
        if _FENCE.match(line):
            fenced, header = not fenced, 0
        elif fenced or not line.lstrip().startswith("|"):
            header = 0
        elif not header:
            header = _cells(line)
        elif (cells := _cells(line)) > header:
            problems.append(
                f"line {number}: a row of {cells} cells under a header of {header} "
                f"(an unescaped | in a cell?): {line.strip()[:60]}"
            )
    return problems


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Warn (an error under --strict) for each table of the page that did not render."""
    for problem in unrendered_tables(html):
        log.warning("%s: %s", page.file.src_path, problem)
    return html


API_FOLDER = "reference/api"
"""Where the generated page of each subpackage goes (`reference/api/datasets.crn.md`)."""


def api_pages() -> dict[str, str]:
    """One page per subpackage: its module docstring, then every public noun of its
    `__all__` rendered by mkdocstrings (signature, docstring, examples). Path → Markdown."""
    import importlib

    pages = {}
    for name in SUBPACKAGES:
        package = importlib.import_module(f"substrates.{name}")
        lead = inspect.cleandoc(package.__doc__ or "")
        nouns = "\n\n".join(f"::: substrates.{name}.{noun}" for noun in package.__all__)
        pages[f"{API_FOLDER}/{name}.md"] = f"# `substrates.{name}`\n\n{lead}\n\n{nouns}\n"
    return pages


def on_files(files: Any, config: Any) -> Any:
    """Add the generated API pages (never written into docs/)."""
    from mkdocs.structure.files import File

    for path, content in api_pages().items():
        files.append(File.generated(config, path, content=content))
    return files


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config: Any) -> Any:
    """Let mkdocstrings find the package as installed: in this repository the package is
    the checkout's root, a folder not named `substrates`, which a plain editable install
    maps by an import hook that mkdocstrings' static loader does not follow (a strict one
    links a `substrates/` folder, which it finds)."""
    package = Path(str(substrates.__file__)).resolve().parent
    if package.name != "substrates":
        link = Path(tempfile.mkdtemp(prefix="substrates-docs-")) / "substrates"
        link.symlink_to(package, target_is_directory=True)
        python = config["plugins"]["mkdocstrings"].config["handlers"].setdefault("python", {})
        python["paths"] = [str(link.parent), *python.get("paths", [])]
    for section in config["nav"]:  # the generated API pages, under Reference
        if isinstance(section, dict) and "Reference" in section:
            section["Reference"].append(
                {
                    "API by subpackage": [
                        {f"substrates.{name}": f"{API_FOLDER}/{name}.md"} for name in SUBPACKAGES
                    ]
                }
            )
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill the generated parts in; warn of table rows whose cells Markdown would drop."""
    if "<!-- generated: cli -->" in markdown:
        markdown = markdown.replace("<!-- generated: cli -->", cli_reference())
    if "<!-- generated: configs -->" in markdown:
        markdown = markdown.replace("<!-- generated: configs -->", configs_reference())
    if "<!-- generated: subpackages -->" in markdown:
        markdown = markdown.replace("<!-- generated: subpackages -->", subpackages_reference())
    if "<!-- generated: summaries -->" in markdown:
        markdown = markdown.replace("<!-- generated: summaries -->", summaries_reference())
    if "<!-- generated: version -->" in markdown:
        markdown = markdown.replace("<!-- generated: version -->", substrates.__version__)
    for problem in overfull_rows(markdown):
        log.warning("%s: %s", page.file.src_path, problem)
    return markdown


def cli_reference() -> str:
    """Every command's and method's --help, as the command prints it."""
    sections = []
    for path, parser in _parsers(build_parser(), ["substrates"]):
        parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
        heading = "#" * min(len(path) + 1, 4)
        sections.append(f"{heading} `{' '.join(path)}`\n\n```text\n{parser.format_help()}```\n")
    return "\n".join(sections)


def _parsers(
    parser: argparse.ArgumentParser, path: list[str]
) -> list[tuple[list[str], argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _parsers(child, [*path, name])
    return found


SUBPACKAGES = (
    "datasets.quantum",
    "datasets.mea",
    "datasets.events",
    "datasets.crn",
    "datasets.cml",
    "models.hh",
    "models.events",
    "models.crn",
    "models.cml",
)


def subpackages_reference() -> str:
    """Each subpackage's public nouns (its `__all__`, from its stub): name, kind, the first
    line of its docstring."""
    import importlib

    sections = []
    for name in SUBPACKAGES:
        package = importlib.import_module(f"substrates.{name}")
        rows = ["| name | kind | what it is |", "|---|---|---|"]
        for noun in package.__all__:
            value = getattr(package, noun)
            kind = "class" if inspect.isclass(value) else "function" if callable(value) else "value"
            doc = (inspect.getdoc(value) or "").split("\n\n")[0].replace("\n", " ")
            rows.append(f"| `{noun}` | {kind} | {_cell(doc) if kind != 'value' else ''} |")
        summary = (package.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        sections.append(f"### `substrates.{name}`\n\n{summary}\n\n" + "\n".join(rows) + "\n")
    return "\n".join(sections)


def summaries_reference() -> str:
    """Each method's summary figures: key, label, unit."""
    from substrates.adapters.methods import list_methods

    sections = []
    for method in list_methods():
        rows = ["| key | figure | unit |", "|---|---|---|"]
        rows += [f"| `{e.key}` | {_cell(e.label)} | {e.unit} |" for e in method.summary]
        sections.append(f"### `{method.name}`\n\n" + "\n".join(rows) + "\n")
    return "\n".join(sections)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, and brackets, so that `belief[i][k]`
    in a docstring is not read as a reference link."""
    return text.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")


def configs_reference() -> str:
    """The shipped configs, then each backend's options: type, default, constraints."""
    rows = ["| config | substrate | backend | description |", "|---|---|---|---|"]
    for name, path in sorted(shipped_configs().items()):
        raw = read_yaml(path)
        description = " ".join(str(raw.get("description", "")).split())
        rows.append(f"| `{name}` | {raw['substrate']} | `{raw['backend']}` | {description} |")
    sections = ["## Shipped configs\n", "\n".join(rows), ""]
    for name in names():
        cls = get_backend_class(name)
        sections.append(f"## `{name}`\n")
        sections.append(
            f"{cls.substrate} substrate, {cls.tier} tier; class "
            f"`{cls.__module__}.{cls.__qualname__}`.\n"
        )
        sections.append(_options_table(cls.Options))
    return "\n".join(sections)


def _options_table(model: type[BaseModel]) -> str:
    doc = inspect.cleandoc(model.__doc__ or "")
    if not model.model_fields:
        return "No options.\n"
    rows = ["| option | type | default | constraints |", "|---|---|---|---|"]
    for field_name, field in model.model_fields.items():
        default = "required" if field.default is PydanticUndefined else f"`{field.default!r}`"
        limits = ", ".join(str(m) for m in field.metadata) or ""
        rows.append(f"| `{field_name}` | `{_type_name(field.annotation)}` | {default} | {limits} |")
    return f"{_indented_doc(doc)}\n\n" + "\n".join(rows) + "\n"


def _indented_doc(doc: str) -> str:
    """A docstring as a paragraph, with its `name: text` lines kept as separate lines."""
    return "\n".join(f"{line}  " if line.strip() else "" for line in doc.splitlines())


def _type_name(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    text = getattr(annotation, "__name__", None) if not typing.get_args(annotation) else None
    return text or str(annotation).replace("typing.", "")
