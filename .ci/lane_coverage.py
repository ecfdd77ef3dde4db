"""Line coverage of the package by each test lane, from one run of both lanes that records
which test ran each line:

    python -m pytest -m "" --cov=substrates --cov-context=test --cov-report=
    python .ci/lane_coverage.py [.coverage]

Prints the coverage of the default lane alone, of the science lane alone and of both, and
every module of the package that the default lane does not reach at all; exits 1 if there
is one (CONTRIBUTING: the default lane covers every module). Lines run while modules are
imported (no test's context) count for both lanes: both import them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import coverage


def science_tests() -> set[str]:
    """Node ids of the science lane, as pytest collects them."""
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "science", "--collect-only", "-q", "-n", "0"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.strip() for line in listing.stdout.splitlines() if "::" in line}


def package_files() -> list[str]:
    """Every module of the installed package, as a path below it ('models/hh/fit.py')."""
    import substrates

    root = Path(substrates.__file__).parent
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))


def _is_checkout(path: str) -> bool:
    """Whether a measured file is the installed package's own (not a copy a test made)."""
    import substrates

    return Path(path).resolve().is_relative_to(Path(substrates.__file__).resolve().parent)


def _in_package(path: str) -> str:
    """A measured file's path below the package folder: the checkout itself (an editable
    install's links resolved), or a folder named substrates (a wheel)."""
    import substrates

    real = Path(substrates.__file__).resolve().parent
    if Path(path).resolve().is_relative_to(real):
        return str(Path(path).resolve().relative_to(real))
    parts = Path(path).parts
    return str(Path(*parts[len(parts) - parts[::-1].index("substrates") :]))


def main(data_file: str = ".coverage") -> int:
    science = science_tests()
    cov = coverage.Coverage(data_file=data_file)
    cov.load()
    data = cov.get_data()
    measured: dict[str, list[str]] = {}
    for path in data.measured_files():  # the checkout, and copies a test installed (a wheel)
        measured.setdefault(_in_package(path), []).append(path)
    checkout = {}
    for module, paths in measured.items():
        inside = [p for p in paths if _is_checkout(p)]
        checkout[module] = inside[0] if inside else paths[0]
    totals = {"default": 0, "science": 0, "both": 0}
    statements = 0
    unreached = []
    for module in package_files():
        if module not in measured:  # never even imported
            unreached.append(module)
            continue
        _, executable, _, _, _ = cov.analysis2(checkout[module])
        lanes: dict[str, set[int]] = {"default": set(), "science": set()}
        for path in measured[module]:  # a line run in any copy of the module counts
            for line, contexts in data.contexts_by_lineno(path).items():
                if line not in executable:
                    continue
                for context in contexts or [""]:
                    test = context.split("|")[0]
                    if test in science:
                        lanes["science"].add(line)
                    else:  # a default-lane test, or an import both lanes make
                        lanes["default"].add(line)
                        if not test:
                            lanes["science"].add(line)
        statements += len(executable)
        totals["default"] += len(lanes["default"])
        totals["science"] += len(lanes["science"])
        totals["both"] += len(lanes["default"] | lanes["science"])
        if executable and not lanes["default"]:
            unreached.append(module)
    print(f"{statements:,} statements in {len(measured)} of the package's files")
    for lane, lines in totals.items():
        print(f"{lane:8} lane(s): {lines:,} lines, {100 * lines / statements:.1f} %")
    for path in unreached:
        print(f"not run by any default-lane test: {path}")
    return 1 if unreached else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
