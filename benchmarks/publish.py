"""`--docs`: a benchmark's printed tables, written into the documentation's validation page.

Each script ends with `with published("name"): main()`. With `--docs` on its command line,
everything it prints is also written into the docs page that holds its block
(validation.md, performance.md or history.md) between the lines
`<!-- benchmark: name -->` and `<!-- /benchmark: name -->`, under the command and the date;
without it the script only prints. The block is replaced only when the run finishes.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = [DOCS / "validation.md", DOCS / "performance.md", DOCS / "history.md"]
"""The pages that hold benchmark blocks: each block stands on one of them."""


class _Tee(io.TextIOBase):
    def __init__(self, *streams: io.TextIOBase) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


@contextlib.contextmanager
def published(name: str) -> Iterator[None]:
    """Run the block; with --docs in sys.argv (removed before the script parses it), put
    what it printed into the validation page's block for `name`."""
    publish = "--docs" in sys.argv
    if publish and "--smoke" in sys.argv:
        sys.exit("--docs --smoke: a smoke run's numbers are no result; publish a full run")
    if publish:
        sys.argv.remove("--docs")
    captured = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, captured)):  # type: ignore[type-var]
        yield
    if publish:
        replace_block(name, captured.getvalue())


SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
BARS = re.compile(r"(?<![\\|])\|([A-Za-z]\w*)\|(?!\|)")
"""|U| (a size written between bars): escaped, so a table does not read it as cells."""


def as_markdown(text: str) -> str:
    """Printed output as Markdown renders it: a blank line around each table (a table right
    under its caption line renders as a paragraph of bars), and |U| escaped in captions
    and cells, where its bars would start a table or shift the columns."""
    lines = text.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        table = line.startswith("|") and (
            (i + 1 < len(lines) and SEPARATOR.match(lines[i + 1]))
            or (out and out[-1].startswith("|"))
        )
        if not SEPARATOR.match(line):
            line = BARS.sub(r"\|\1\|", line)
        if table and out and out[-1].strip() and not out[-1].startswith("|"):
            out.append("")
        if not table and out and out[-1].startswith("|") and line.strip():
            out.append("")
        out.append(line)
    return "\n".join(out)


def replace_block(name: str, output: str) -> None:
    """Swap the page's block for `name` with `output`, dated, naming the command."""
    start, end = f"<!-- benchmark: {name} -->", f"<!-- /benchmark: {name} -->"
    held = [p for p in PAGES if start in (t := p.read_text()) and end in t]
    if not held:
        sys.exit(f"no page of {DOCS} has a block '{start}' ... '{end}' to write into")
    page = held[0]
    text = page.read_text()
    script = Path(sys.argv[0]).resolve()
    root = DOCS.parent
    shown = script.relative_to(root) if script.is_relative_to(root) else script
    command = " ".join(["python", str(shown), *sys.argv[1:]])
    body = f"`{command}`, {datetime.date.today().isoformat()}:\n\n{as_markdown(output.strip())}\n"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.DOTALL)
    page.write_text(pattern.sub(lambda _: f"{start}\n{body}{end}", text, count=1))
    print(f"wrote the '{name}' block of {page}", file=sys.stderr)
