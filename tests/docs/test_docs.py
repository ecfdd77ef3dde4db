"""The documentation's code runs: every Python block of the README and the site executes
(page by page, in a fresh interpreter, in an empty folder), every `substrates ...` command
in their shell blocks parses with the real parser, every script in examples/ runs, and the
docstring examples of the public API pass as doctests."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from substrates.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "docs" / "generated"  # the example gallery's pages, written by a build
PAGES = sorted(
    [REPO / "README.md", *(p for p in (REPO / "docs").rglob("*.md") if GENERATED not in p.parents)]
)
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)
PLUGIN_PAGE = "write-a-backend.md"


def blocks(page: Path, languages: set[str]) -> list[str]:
    """The page's fenced blocks of these languages, with snippet includes expanded; a block
    titled "needs ..." (a SLURM cluster, say) is shown, not run."""
    found = []
    for language, info, body in FENCE.findall(page.read_text()):
        if language in languages and 'title="needs' not in info:
            found.append(SNIPPET.sub(lambda m: (REPO / m[1]).read_text(), body))
    return found


def commands(page: Path) -> list[list[str]]:
    """The arguments of every `substrates` command in the page's console and shell blocks
    (console: lines after `$ `; shell: every line, continuations joined, here-docs skipped)."""
    found = []
    for language, _, body in FENCE.findall(page.read_text()):
        if language not in {"console", "bash", "sh"}:
            continue
        text = body.replace("\\\n", " ")
        text = re.sub(r"<<'(\w+)'\n.*?^\1$", "", text, flags=re.MULTILINE | re.DOTALL)
        for line in text.splitlines():
            if language == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            words = shlex.split(line, comments=True)
            if words[:1] == ["substrates"]:
                found.append(words[1:])
    return found


PYTHON_PAGES = [p for p in PAGES if blocks(p, {"python"})]
COMMANDS = [(p, c) for p in PAGES for c in commands(p)]


def test_the_pages_hold_code_to_check() -> None:
    assert len(PYTHON_PAGES) >= 6 and len(COMMANDS) >= 40


@pytest.mark.parametrize(
    ("page", "words"), COMMANDS, ids=[f"{p.name}:{' '.join(c)[:40]}" for p, c in COMMANDS]
)
def test_every_command_in_the_docs_parses(page: Path, words: list[str]) -> None:
    try:
        build_parser().parse_args(words)
    except SystemExit as exit:
        pytest.fail(f"{page.relative_to(REPO)}: `substrates {' '.join(words)}` exits {exit.code}")


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=[p.name for p in PYTHON_PAGES])
def test_every_python_block_runs(page: Path, tmp_path: Path, request) -> None:
    code = "\n\n".join(blocks(page, {"python"}))
    env = {**os.environ, "MPLBACKEND": "Agg"}
    if page.name == PLUGIN_PAGE:
        env["PYTHONPATH"] = str(request.getfixturevalue("plugin_site"))
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"{page.relative_to(REPO)}:\n{result.stderr[-3000:]}"


EXAMPLES = sorted((REPO / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_runs(script: Path, tmp_path: Path) -> None:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()


DOCTESTED = [
    "substrates",
    "substrates.adapters.config.build",
    "substrates.adapters.methods.registry",
    "substrates.adapters.methods.run_method",
    "substrates.adapters.runs.run",
    "substrates.backends.quantum.dynamic",
    "substrates.backends.quantum.pennylane",
    "substrates.backends.quantum.snapshot_subset",
    "substrates.datasets.crn.evidence",
    "substrates.datasets.crn.files",
    "substrates.datasets.events.class_folders",
    "substrates.datasets.events.nmnist",
    "substrates.datasets.events.stream",
    "substrates.models.events.frame_flow",
    "substrates.models.events.iwe",
    "substrates.models.qrim.search",
    "substrates.studies.declaration",
    "substrates.studies.judge",
    "substrates.studies.ledger",
]


@pytest.mark.parametrize("module", DOCTESTED)
def test_docstring_examples(module: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    imported = importlib.import_module(module)
    result = doctest.testmod(imported, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


GUIDES = sorted((REPO / "docs" / "substrates").glob("*.md"))
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("guide", GUIDES, ids=[p.name for p in GUIDES])
def test_every_guide_shows_a_run_s_plot_the_figures_script_makes(guide: Path) -> None:
    """Each substrate's guide embeds at least one image; each is in docs/images and is one
    that docs/figures.py makes from a run, so `python docs/figures.py` regenerates it."""
    spec = importlib.util.spec_from_file_location("figures", REPO / "docs" / "figures.py")
    assert spec is not None and spec.loader is not None
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    images = IMAGE.findall(guide.read_text())
    assert images, f"{guide.name}: no image"
    for image in images:
        path = (guide.parent / image).resolve()
        assert path.is_file(), f"{guide.name}: {image} missing"
        assert path.parent == figures.IMAGES and path.name in figures.FIGURES, image
