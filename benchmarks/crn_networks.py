"""`crn-validate` on every Bayesian network pgmpy's wheel ships, one table.

Each network (the BIF files in pgmpy/utils/example_models, smallest first) is validated
from the command line as a user would, in a process of its own: `substrates run
crn-validate --graph NET.bif.gz --evidence ... --samples 0 --starts 0 --perturbation none`
(no rate-noise or random-start runs: the table is about the reduction and its verdict).
The evidence is `--observed` variables (default 3) and their values in one forward sample
of the network (so it has positive probability), both drawn with the seed `--seed` plus
the network's position; the seeds were fixed before any run and never tuned. Hailfinder
is also run with the four observations issue #45 reported (a rest point 0.48 from BP).

Per network: reactions of the original and the reduced CRN, the verdict and its exit
status, the check it rests on, BP against the exact marginals where elimination fits,
wall time and peak memory (the run's process, from wait4), or the one-line refusal (a CRN
over the reaction budget, refused before compiling) or a time-out.

    python benchmarks/crn_networks.py [--timeout 900] [--only water,alarm] [--docs]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from publish import published

from substrates.datasets.crn.bif import read_bif
from substrates.datasets.crn.evidence import drawn_evidence

print = functools.partial(print, flush=True)  # rows appear as they are measured

ISSUE_45 = {
    "TempDis": "Moving",
    "RHRatio": "DryMMoistL",
    "WindFieldMt": "Westerly",
    "SynForcng": "SigPositive",
}
"""The hailfinder observations issue #45 reported (crn_original vs bp 0.479, exit 0)."""
VERDICT_CODES = {0: "valid", 3: "not valid", 4: "cannot tell"}


def networks() -> list[Path]:
    """pgmpy's BIF networks, smallest file first."""
    from importlib.resources import files

    folder = Path(str(files("pgmpy") / "utils" / "example_models"))
    return sorted(folder.glob("*.bif.gz"), key=lambda p: p.stat().st_size)


def validate(path: Path, evidence: dict[str, str], timeout: float) -> dict[str, object]:
    """One `crn-validate` run in its own process (under GNU time for its peak RSS): exit
    status (None: timed out), wall s, peak GB, its provenance or its last stderr line."""
    with tempfile.TemporaryDirectory() as out:
        rss = Path(out) / "rss.txt"
        command = [
            "/usr/bin/time",
            "-o",
            str(rss),
            "-f",
            "%M",
            sys.executable,
            "-m",
            "substrates",
            "run",
            "crn-validate",
            "--graph",
            str(path),
            "--evidence",
            ",".join(f"{k}={v}" for k, v in evidence.items()),
            "--samples",
            "0",
            "--starts",
            "0",
            "--perturbation",
            "none",
            "--out",
            str(Path(out) / "runs"),
        ]
        start = time.perf_counter()
        child = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            return {"code": None, "wall_s": timeout, "peak_gb": float("nan")}
        wall = time.perf_counter() - start
        lines = rss.read_text().split() if rss.is_file() else []
        peak = int(lines[-1]) / 1024**2 if lines and lines[-1].isdigit() else float("nan")
        record: dict[str, object] = {"code": child.returncode, "wall_s": wall, "peak_gb": peak}
        for folder in (Path(out) / "runs").glob("crn-validate-*"):
            if (folder / "provenance.json").is_file():
                record["provenance"] = json.loads((folder / "provenance.json").read_text())
        said = [
            line for line in stderr.splitlines() if line.strip() and "Command exited" not in line
        ]
        record["message"] = said[-1] if said else ""
        return record


def cell(text: str) -> str:
    """Text for a table cell: a bar in it (|dx/dt|) would split the cell."""
    return text.replace("|", "\\|")


def row(name: str, evidence: dict[str, str], record: dict[str, object]) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in evidence.items())
    wall, peak, code = record["wall_s"], record["peak_gb"], record["code"]
    provenance = record.get("provenance")
    if code is None:
        outcome = "timed out"
    elif not isinstance(provenance, dict) or "verdict" not in provenance:
        outcome = f"refused (exit {code}): {cell(str(record['message']))}"
    else:
        summary, verdict = provenance["summary"], provenance["verdict"]
        sizes = summary["sizes"]
        before, after = sizes["crn_original"]["reactions"], sizes["crn_reduced"]["reactions"]
        exact = summary["differences"].get("bp vs exact")
        deciding = verdict["line"].split(": ", 2)[-1].split("; closest ")[-1]
        return (
            f"| {name} | {shown} | {before:,} → {after:,} | {verdict['outcome']} (exit {code})"
            f" | {cell(deciding)} | {'—' if exact is None else f'{exact:.1e}'} | {wall:.0f} | "
            f"{peak:.2f} |"
        )
    return f"| {name} | {shown} | — | {outcome} | — | — | {wall:.0f} | {peak:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per network")
    parser.add_argument("--observed", type=int, default=3, help="observations per network")
    parser.add_argument("--seed", type=int, default=45, help="evidence seed (+ position)")
    parser.add_argument("--only", default="", help="comma list of network names")
    args = parser.parse_args()
    only = {name for name in args.only.split(",") if name}
    print(
        "| network | evidence (drawn) | reactions before → after | verdict | the check it "
        "rests on | BP vs exact | wall s | peak GB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    runs = [(p, None) for p in networks()]
    runs.append((next(p for p in networks() if p.name == "hailfinder.bif.gz"), ISSUE_45))
    for position, (path, given) in enumerate(runs):
        name = path.name.removesuffix(".bif.gz")
        if only and name not in only:
            continue
        graph = read_bif(path)
        evidence = given or drawn_evidence(graph, args.observed, args.seed + position)
        label = f"{name} ({graph.variables} variables){' — issue #45' if given else ''}"
        print(row(label, evidence, validate(path, evidence, args.timeout)))


if __name__ == "__main__":
    if "--docs" in sys.argv and "--only" in sys.argv:
        sys.exit("--docs --only: the page's block holds every network; publish a full run")
    with published("crn_networks"):
        main()
