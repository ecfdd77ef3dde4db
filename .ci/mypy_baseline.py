"""mypy on the installed package, held against .ci/mypy-baseline.txt (errors per file).

Fails when a file has more errors than its baseline, or any error in the interfaces and
the public API (which must stay at zero). `--update` rewrites the baseline from today's
counts, for after errors were fixed (it refuses to raise any count; `--init` writes the
first baseline, with the interfaces and the public API still held at zero).
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

BASELINE = Path(__file__).with_name("mypy-baseline.txt")
ZERO = re.compile(
    r"^(backends/base\.py|backends/[a-z]+/base\.py|backends/registry\.py|errors\.py"
    r"|__init__\.pyi|adapters/methods/.*|adapters/config/build\.py|adapters/runs/run\.py)$"
)
LINE = re.compile(r"^(?P<path>\S+?\.pyi?):\d+: error: ")


def counts() -> collections.Counter[str]:
    """Errors per file, paths relative to the package root."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "-p",
            "substrates",
            "--ignore-missing-imports",
            "--no-error-summary",
            "--hide-error-context",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode not in (0, 1):
        sys.exit(f"mypy failed to run:\n{result.stdout}{result.stderr}")
    found: collections.Counter[str] = collections.Counter()
    for line in result.stdout.splitlines():
        if match := LINE.match(line):
            found[match["path"].split("/substrates/", 1)[-1]] += 1
    print(result.stdout, end="")
    return found


def main() -> int:
    found = counts()
    baseline = collections.Counter(
        {
            path: int(n)
            for path, n in (
                line.rsplit(" ", 1) for line in BASELINE.read_text().splitlines() if line.strip()
            )
        }
    )
    worse = {p: n for p, n in found.items() if n > baseline[p] or ZERO.match(p)}
    if "--init" in sys.argv:
        worse = {p: n for p, n in found.items() if ZERO.match(p)}
    if "--update" in sys.argv or "--init" in sys.argv:
        if worse:
            sys.exit(f"refusing to raise the baseline: {worse}")
        BASELINE.write_text("".join(f"{p} {n}\n" for p, n in sorted(found.items())))
        print(f"baseline: {sum(found.values())} errors in {len(found)} files")
        return 0
    if worse:
        for path, n in sorted(worse.items()):
            print(f"{path}: {n} mypy errors (baseline {baseline[path]})", file=sys.stderr)
        return 1
    print(
        f"mypy: {sum(found.values())} errors in {len(found)} files, none new "
        f"(baseline {sum(baseline.values())})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
