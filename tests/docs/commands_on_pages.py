"""What the two docs-command tests share (`test_commands.py`, `test_commands_guides.py`,
science lane), loaded by the `pages` fixture of this folder's conftest.py.

Every command the README and the docs pages show runs as written: the shell lines of each
page (`$ ` lines of console blocks, every command of bash blocks) run in order from an
empty folder, by the installed `substrates` command, and must exit 0 within their time
budget. YAML blocks whose first line names a file (`# my_aer.yaml`) are written into the
folder first, as a reader would save them. The how-to that writes a backend runs with the
example plugin installed (`plugin_site`), as its reader would have it.

Lines a reader cannot run as written without something of their own (a recording, an IBM
account, a GPU, a cluster) are listed in NOT_RUN with the reason; lines that take minutes
run with the smaller options in SMALLER, and the pages say so. The tables are checked
against the pages: an entry for a line no page has any more fails, and so does a new line
that is neither run nor listed (it runs, and must pass). Checks of a live camera must
refuse in one line here (REFUSED_HERE). A `substrates run`/`check` line that an earlier
page (in PAGES' order, the README first) already runs with the same options runs there
only: it makes its own run folder and reads nothing an earlier line wrote.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [
    REPO / "README.md",
    REPO / "docs" / "getting-started.md",
    *sorted((REPO / "docs" / "substrates").glob("*.md")),
    *sorted((REPO / "docs" / "how-to").glob("*.md")),
]
BLOCK = re.compile(r"^```(console|bash|yaml)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
COMMENT = re.compile(r"\s{2,}#.*$")
HEREDOC = re.compile(r"<<-?\s*'?(\w+)'?")
SAVED = re.compile(r"#\s*([\w.-]+\.ya?ml)\s*$")

NOT_RUN = {
    'pip install ".[quantum]" && substrates run qrim': "installs: .ci/run runs it on a clean clone",
    'pip install torch==2.13.0 && pip install -e ".[test]" --config-settings '
    "editable_mode=strict && python -m pytest": "installs and runs this suite: .ci/run does",
    'pip install torch==2.13.0 && pip install -e ".[docs]"': "installs: .ci/run's set-up 2",
    "mkdocs serve": "a server; .ci/run builds the site with --strict",
    "substrates run hh-fit --source mea_nwb --recording session.nwb": "a recording of yours",
    "substrates run hh-fit --source mea_sim --simulator mea_sim_gpu": "a CUDA GPU",
    "substrates jobs collect runs/sample-20261129-101500-3f2a": "a run folder of yours",
    "substrates jobs list runs/sample-20261129-101500-3f2a": "a run folder of yours",
    "substrates run sample --hardware ibm_hardware --circuit my_circuit.qasm": "an IBM account",
    "substrates run estimate --hardware ibm_hardware --circuit my_circuit.qasm "
    "--observables ZZI,XXX --precision 0.01": "an IBM account",
    "substrates run sample --hardware pennylane_lightning --circuit my_circuits.qpy "
    "--shots 10000 --seed 7": "a circuit file of yours",
    "substrates run cml-reconstruct --source cml_opensense --data FILE_OR_OPENMRG_FOLDER "
    "--start 2015-07-28T14:00 --end 2015-07-28T17:00": "link data of yours",
    "substrates run crn-validate --graph FILE.fg --reduce all --simulator "
    "hardware_configs/crn_ode.yaml": "a factor graph of yours",
    "substrates run crn-validate --crn runs/<run>/crn_original.xml --keep 1,3": (
        "an earlier run's folder name"
    ),
    "substrates run crn-validate --graph grid.fg --lifted": "a factor graph of yours",
    "substrates run event-layers --source events_file --events recording.raw --window-ms 200": (
        "a recording of yours"
    ),
    "substrates run event-layers --source events_file --events recording.raw --start-ms 60000": (
        "a recording of yours"
    ),
    "substrates check my.yaml": "shows the error of a file the page does not show",
    "substrates check my2.yaml": "shows the error of a file the page does not show",
    "substrates check my_slurm.yaml": "a SLURM cluster",
    "substrates sweep qrim --grid grid.yaml --executor my_slurm.yaml --out /shared/sweeps/u": (
        "a SLURM cluster"
    ),
    "substrates run qrim --env frozenlake4 --uncertainty 16 --hardware ibm_fake_brisbane": (
        "nothing more: tests/e2e/test_run_qrim.py::test_hardware_path_on_a_device_snapshot "
        "(science lane) runs it with --uncertainty 2 (6 min as written)"
    ),
    "python -m substrates.testing quantum.numpy": (
        "nothing more: .ci/run's last step runs it as written, with the plugin installed"
    ),
}
"""Command (as written, trailing comment removed) → why this test does not run it: what it
needs that only the reader has, or where CI runs it as written."""
SMALLER = {
    "substrates run qrim --env inventory --uncertainty 256 --outer q_learning": "--steps 100",
    "substrates run hh-fit": "--simulations 50",
    "substrates run hh-fit --cells 10": "--cells 2 --simulations 50",
    "substrates run cml-reconstruct": "--methods idw",
    "substrates run cml-reconstruct --source cml_opensense": "--methods idw",
    "substrates run event-layers": "--scenes 1",
    "substrates run event-layers --homography --motion affine": "--scenes 1",
}
"""Command that takes minutes → the options the test adds (the page says so)."""
REFUSED_HERE = {
    "substrates check events_camera": "cannot run here: no camera",
    "substrates check events_camera_prophesee": "cannot run here: no camera",
}
"""A check the page shows asking about hardware this machine lacks → what its one-line
refusal (exit 2) must name; with the hardware it exits 0."""
PLUGIN_PAGE = "write-a-backend.md"
BUDGET_S = 300
"""Seconds each line may take (after SMALLER's options)."""


def page(name: str) -> Path:
    """The page of PAGES with this file name."""
    (found,) = [p for p in PAGES if p.name == name]
    return found


def commands(page: Path) -> list[str]:
    """The page's shell commands in order, as bash reads them: `$ ` lines of console blocks,
    and each command of bash blocks (continuation lines joined, a here-document kept whole),
    trailing comments removed (the pages put two spaces or more before them)."""
    found = []
    for language, block in BLOCK.findall(page.read_text(encoding="utf-8")):
        if language == "console":
            found += [
                COMMENT.sub("", line[2:]).strip()
                for line in block.splitlines()
                if line.startswith("$ ")
            ]
        elif language == "bash":
            lines = iter(block.splitlines())
            for line in lines:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                while line.endswith("\\"):
                    line = line[:-1].rstrip() + " " + next(lines).strip()
                if heredoc := HEREDOC.search(line):
                    body = []
                    for more in lines:
                        body.append(more)
                        if more.strip() == heredoc.group(1):
                            break
                    found.append("\n".join([line, *body]))
                else:
                    found.append(COMMENT.sub("", line).strip())
    return found


def saved_files(page: Path) -> dict[str, str]:
    """The YAML blocks that name their file on their first line: file name → text."""
    files = {}
    for language, block in BLOCK.findall(page.read_text(encoding="utf-8")):
        first = block.split("\n", 1)[0]
        if language == "yaml" and (name := SAVED.fullmatch(first.strip())):
            files[name.group(1)] = block
    return files


def run_elsewhere(page: Path) -> dict[str, str]:
    """This page's `substrates run`/`check` lines (with SMALLER's options) that an earlier
    page already runs: line → that page's name."""
    seen: dict[str, str] = {}
    for earlier in PAGES[: PAGES.index(page)]:
        for line in commands(earlier):
            seen.setdefault(line, earlier.name)
    return {
        line: seen[line]
        for line in commands(page)
        if line in seen and line.startswith(("substrates run ", "substrates check "))
    }


def run_page(page: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Run the page's commands in order from the empty folder `tmp_path`; fail naming
    every line that did not exit as it should."""
    command = shutil.which("substrates")
    assert command is not None, "the substrates command is not installed"
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "PATH": f"{Path(command).parent}:{os.environ['PATH']}",
    }
    if page.name == PLUGIN_PAGE:
        env["PYTHONPATH"] = str(request.getfixturevalue("plugin_site"))
    for name, text in saved_files(page).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    failures = []
    elsewhere = run_elsewhere(page)
    for line in commands(page):
        if line in NOT_RUN:
            continue
        if line in elsewhere:
            print(f"   run on {elsewhere[line]}: {line}")
            continue
        run = line + (f" {SMALLER[line]}" if line in SMALLER else "")
        start = time.perf_counter()
        try:
            result = subprocess.run(
                ["bash", "-c", run],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=BUDGET_S,
            )
        except subprocess.TimeoutExpired:
            failures.append(f"`{run}` ran past {BUDGET_S} s")
            continue
        print(f"{time.perf_counter() - start:7.1f} s  {run.splitlines()[0]}")
        if line in REFUSED_HERE:
            said = result.stderr.strip()
            if result.returncode != 2 or "\n" in said or REFUSED_HERE[line] not in said:
                failures.append(
                    f"`{run}` exits {result.returncode}, not a one-line refusal "
                    f"naming {REFUSED_HERE[line]!r}:\n{said[-1500:]}"
                )
        elif result.returncode != 0:
            failures.append(f"`{run}` exits {result.returncode}:\n{result.stderr[-1500:]}")
    assert not failures, f"{page.name}:\n" + "\n".join(failures)
