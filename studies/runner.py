"""Run a study: its cases on an executor (this process, a process pool or a Dask cluster,
as sweeps do), each finished case kept as a Parquet fragment so an interrupted study
resumes, every held-out look appended to the ledger, then the verdict from the numbers.

    RESULTS/ledger.jsonl                       every look at a held-out case
    RESULTS/<study>/<case>-<key>.parquet       a finished case's rows (key: sources,
                                               settings and the case's parameters)
    RESULTS/<study>.parquet                    the rows of every case of the last run
    RESULTS/<study>.json                       its verdict, cases, looks and settings

A case is held out only while the ledger shows no look at it under other settings
(ledger.py); a case that was moved counts as development and never enters the verdict.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..adapters.config.executor import load_executor_config
from ..adapters.runs.folder import RunFolder
from ..adapters.runs.provenance import git_revision, now
from ..adapters.sweeps.executors import InProcess, make_executor
from ..errors import SubstratesError
from .declaration import Case, Study, digest
from .judge import Judgement, judge
from .ledger import Ledger, Look

PACKAGE = Path(__file__).resolve().parents[1]
"""The package's root: a study's `sources` are relative to it."""


def sources_digest(study: Study) -> str:
    """A digest of the content of every Python file under the study's sources (files or
    folders of the package), and of the study's own module."""
    hasher = hashlib.sha256()
    module = sys.modules[study.run_case.__module__].__file__
    paths = [PACKAGE / s for s in study.sources] + ([Path(module)] if module else [])
    for path in paths:
        if not path.exists():
            raise SubstratesError(f"study {study.name}: source {path} does not exist")
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            hasher.update(
                str(
                    file.relative_to(PACKAGE) if file.is_relative_to(PACKAGE) else file.name
                ).encode()
            )
            hasher.update(file.read_bytes())
    return hasher.hexdigest()[:12]


@dataclass(frozen=True)
class CaseStatus:
    """A case as the runner treats it: its role now (a held-out case looked at under other
    settings is 'development', with `moved` saying why), and its look (held out only)."""

    case: Case
    role: str
    moved: str | None
    look: int | None


@dataclass(frozen=True)
class StudyReport:
    """What a study run found: the cases and their status, every row, the verdict."""

    study: Study
    settings: Mapping[str, Any]
    statuses: Sequence[CaseStatus]
    rows: Sequence[Mapping[str, Any]]
    judgement: Judgement
    record: Mapping[str, Any]

    @property
    def failed(self) -> Mapping[str, str]:
        """Cases that failed to run: name → the error."""
        failed: Mapping[str, str] = self.record["failed"]
        return failed


def statuses(
    study: Study, ledger: Ledger, settings: Mapping[str, Any], sources: str, cases: Sequence[Case]
) -> list[CaseStatus]:
    """Each case's role and look under these settings and sources."""
    out = []
    for case in cases:
        if case.role != "held-out" or case in study.smoke:  # a smoke case is never a look
            out.append(CaseStatus(case, case.role, None, None))
            continue
        moved = ledger.moved(study.name, case.name, settings)
        role = "development" if moved else "held-out"
        look = ledger.look(study.name, case.name, sources, settings)
        out.append(CaseStatus(case, role, moved, look))
    return out


def run_study(
    study: Study,
    results: str | Path,
    *,
    cases: Sequence[str] | None = None,
    settings: Mapping[str, Any] | None = None,
    executor: str | None = None,
    smoke: bool = False,
    again: bool = False,
    log: Any = None,
) -> StudyReport:
    """Run `study`'s cases (all, or those named in `cases`; its smoke cases with `smoke`)
    under `settings` (default: the study's), reusing finished cases, and judge it on
    every case finished at these sources and settings (named or not).
    executor: an executor config (cluster_local, a dask config) or None for this
    process. again: run the named cases again (a reproduction) instead of reading them
    back. log: a callable taking one line of progress (default: stderr)."""
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    results = Path(results)
    chosen_settings = dict(study.settings if settings is None else settings)
    if smoke:
        chosen_settings |= study.smoke_settings
    pool = study.smoke if smoke else study.cases
    named = _named(study, pool, cases, smoke)
    ledger = Ledger(results / "ledger.jsonl")
    sources = sources_digest(study)
    found = statuses(study, ledger, chosen_settings, sources, pool)
    folder = RunFolder(results / study.name / ("smoke" if smoke else ""))
    folder.path.mkdir(parents=True, exist_ok=True)

    def fragment(case: Case) -> str:
        return f"{case.name}-{digest([sources, chosen_settings, dict(case.parameters)])}.parquet"

    rows: dict[str, list[dict[str, Any]]] = {}
    pending = []
    for status in found:
        name = fragment(status.case)
        if folder.file(name).is_file() and not (again and status.case in named):
            rows[status.case.name] = folder.read_table(name).to_pylist()
            say(f"{status.case.name}: finished before, read from {folder.file(name)}")
        elif status.case in named:
            pending.append(status)

    def finished(status: CaseStatus, case_rows: list[dict[str, Any]]) -> None:
        if status.role == "held-out" and not smoke:
            means = _means(case_rows, study.goal.metric)
            look = Look.new(
                study.name, status.case.name, status.look or 1, sources, chosen_settings, means
            )
            ledger.append(look)
        folder.write_table(fragment(status.case), pa.Table.from_pylist(case_rows))
        rows[status.case.name] = case_rows

    failed = _execute(study, pending, chosen_settings, executor, finished, say)
    done = [s for s in found if s.case.name in rows or s.case.name in failed]
    every = [row for status in done for row in rows.get(status.case.name, [])]
    held = {s.case.name for s in done if s.role == "held-out"}
    judgement = judge([r for r in every if r["case"] in held], study.goal, study.replicate)
    if failed.keys() & held:
        judgement = judgement.unfinished(sorted(failed.keys() & held))
    record = _record(study, chosen_settings, sources, done, judgement, smoke)
    record["failed"] = failed
    if not smoke:
        role = {s.case.name: s.role for s in done}
        table = pa.Table.from_pylist([{**r, "role": role[r["case"]]} for r in every])
        RunFolder(results).write_table(f"{study.name}.parquet", table)
        RunFolder(results).write_json(f"{study.name}.json", record)
    return StudyReport(study, chosen_settings, done, every, judgement, record)


def _named(
    study: Study, pool: Sequence[Case], cases: Sequence[str] | None, smoke: bool
) -> list[Case]:
    """The cases of `pool` named in `cases` (all of them without), or a SubstratesError
    naming those it does not hold."""
    chosen = [c for c in pool if not cases or c.name in cases]
    if unknown := set(cases or ()) - {c.name for c in chosen}:
        kind = "smoke cases" if smoke else "cases (--smoke runs the smoke cases)"
        raise SubstratesError(
            f"study {study.name}: no {kind} {', '.join(sorted(unknown))}; "
            f"its {kind.split(' (')[0]}: {', '.join(c.name for c in pool)}"
        )
    if not chosen:
        raise SubstratesError(f"study {study.name} has no {'smoke ' if smoke else ''}cases")
    return chosen


def _execute(
    study: Study,
    pending: Sequence[CaseStatus],
    settings: Mapping[str, Any],
    executor: str | None,
    finished: Any,
    say: Any,
) -> dict[str, str]:
    """Run `pending` cases on the executor, handing each one's rows to `finished` as it
    completes; the cases that raised, with their errors (the others go on)."""
    failed: dict[str, str] = {}
    runner = InProcess() if executor is None else make_executor(load_executor_config(executor))
    with runner:
        began = time.perf_counter()
        futures = {runner.submit(study.run_case, s.case, settings): s for s in pending}
        for future in runner.completed(futures):
            status = futures[future]
            try:
                case_rows = [{**row, "case": status.case.name} for row in future.result()]
            except Exception as error:  # a case's failure is reported; the others go on
                failed[status.case.name] = f"{type(error).__name__}: {error}"
                say(f"{status.case.name}: FAILED: {failed[status.case.name]}")
                continue
            finished(status, case_rows)
            look = "" if status.look is None else f" (held out, look {status.look})"
            say(f"{status.case.name}: done{look}, {time.perf_counter() - began:.0f} s")
    return failed


def _means(rows: Sequence[Mapping[str, Any]], metric: str) -> dict[str, float]:
    """Each method's mean metric over a case's rows (NaN rows left out), every method the
    rows hold (those beside the goal too)."""
    out = {}
    for method in dict.fromkeys(r["method"] for r in rows):
        values = [float(r[metric]) for r in rows if r["method"] == method]
        finite = [v for v in values if v == v]
        out[method] = sum(finite) / len(finite) if finite else float("nan")
    return out


def _record(
    study: Study,
    settings: Mapping[str, Any],
    sources: str,
    found: Sequence[CaseStatus],
    judgement: Judgement,
    smoke: bool,
) -> dict[str, Any]:
    return {
        "study": study.name,
        "substrate": study.substrate,
        "claim": study.claim,
        "seed_figure": study.seed_figure,
        "goal": study.goal.text(),
        "metric": study.goal.metric,
        "method": study.goal.method,
        "baselines": list(study.goal.baselines),
        "relative": study.goal.relative,
        "replicate": study.replicate,
        "settings": dict(settings),
        "sources": sources,
        "commit": git_revision(),
        "date": now(),
        "smoke": smoke,
        "cases": [
            {
                "case": s.case.name,
                "declared": s.case.role,
                "role": s.role,
                "moved": s.moved,
                "look": s.look,
                "shares": s.case.shares,
                "differs": s.case.differs,
            }
            for s in found
        ],
        "judgement": judgement.to_dict(),
    }
