"""A study's tables as Markdown, and the validation page's generated summary.

`study_table` prints one run: the cases (role, look, what the truth shares with the
method and what not), each method's mean with its interval, the effect against every
baseline, and the verdict last. `summary_table` reads the `<study>.json` records a
results folder holds and writes one row per study: claim | seed's figure | ours |
interval | cases | looks | verdict; `write_block` puts it into a page between
`<!-- studies: NAME -->` and `<!-- /studies: NAME -->`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..adapters.runs.folder import RunFolder
from ..errors import SubstratesError
from .declaration import Study
from .judge import Estimate, effect_text
from .ledger import Look
from .runner import StudyReport


def cell(text: Any) -> str:
    """Text for a table cell: a bar (|x|) would split the cell, a newline the row."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(estimate: Mapping[str, float] | Estimate) -> str:
    """'0.392 (0.0016 to 0.111)': a mean and its interval, three figures."""
    e = estimate if isinstance(estimate, Estimate) else Estimate(**estimate)
    inside = f"{e.low:.3g} to {e.high:.3g}" if e.bounded else "no interval"
    return f"{e.value:.3g} ({inside})"


def study_table(report: StudyReport) -> str:
    """The run's tables and its verdict line (last)."""
    study, judged = report.study, report.judgement
    goal = study.goal
    lines = [
        f"study {study.name} ({study.substrate}): {study.claim}",
        f"goal: {goal.text()}",
        f"seed's figure: {study.seed_figure}",
        "settings: " + (", ".join(f"{k}={v}" for k, v in report.settings.items()) or "none"),
    ]
    said = {(s.case.shares, s.case.differs) for s in report.statuses}
    alike = len(said) == 1
    if alike:
        shares, differs = said.pop()
        lines += [f"every case's truth shares with the method: {shares}; not: {differs}"]
    lines += [
        "",
        "| case | declared | counted as | look |"
        + ("" if alike else " the truth shares with the method | and does not |"),
        "|---|---|---|---|" + ("" if alike else "---|---|"),
    ]
    for s in report.statuses:
        counted = s.role + (f" ({s.moved})" if s.moved else "")
        look = "—" if s.look is None else str(s.look)
        said_here = "" if alike else f" {cell(s.case.shares)} | {cell(s.case.differs)} |"
        lines.append(f"| {s.case.name} | {s.case.role} | {cell(counted)} | {look} |{said_here}")
    lines += ["", *_per_case(report)]
    for name, error in report.failed.items():
        lines.append(f"{name}: FAILED to run: {error}")
    lines += [
        "",
        f"| held out ({judged.replicates} replicates: {study.replicate}) | "
        f"{cell(f'{goal.metric} {goal.unit}'.strip())} (95%) | vs {cell(goal.method)} |",
        "|---|---|---|",
    ]
    for method, estimate in judged.means.items():
        effect = judged.effects.get(method)
        versus = "—" if effect is None else effect_text(effect, goal)
        lines.append(f"| {method} | {_value(estimate)} | {versus} |")
    if judged.dropped:
        lines.append(f"({judged.dropped} replicates left out: a method's value is missing there)")
    lines += ["", f"Verdict: {judged.line}"]
    return "\n".join(lines)


def _per_case(report: StudyReport) -> list[str]:
    """Each case's mean metric per method, and the study's detail columns."""
    study = report.study
    methods = list(dict.fromkeys(r["method"] for r in report.rows))
    lines = [
        f"| case ({study.goal.metric}) | counted as | {' | '.join(methods)} |"
        + "".join(f" {d} |" for d in study.details),
        "|---|---|" + "---|" * (len(methods) + len(study.details)),
    ]
    for s in report.statuses:
        rows = [r for r in report.rows if r["case"] == s.case.name]
        if not rows:
            continue
        cells = []
        for method in methods:
            values = [float(r[study.goal.metric]) for r in rows if r["method"] == method]
            finite = [v for v in values if v == v]
            cells.append(f"{sum(finite) / len(finite):.4g}" if finite else "—")
        details = [cell(rows[0].get(d, "—")) for d in study.details]
        lines.append(f"| {s.case.name} | {s.role} | " + " | ".join(cells + details) + " |")
    return lines


def records(results: str | Path) -> list[dict[str, Any]]:
    """Every study record in a results folder, by substrate then name."""
    folder = Path(results)
    found = []
    for path in sorted(folder.glob("*.json")):
        record = RunFolder(folder).read_json(path.name)
        if isinstance(record, dict) and "judgement" in record:
            found.append(record)
    return sorted(found, key=lambda r: (r["substrate"], r["study"]))


def summary_table(
    found: Iterable[Mapping[str, Any]],
    looks: Mapping[str, int],
    declared: Iterable[Study] = (),
) -> str:
    """One row per study record; `looks`: study → the most looks any of its held-out
    cases had;
    `declared`: studies whose rows say 'not run' where `found` has no record of them."""
    lines = [
        "| substrate | study | claim | seed's figure | ours | effect vs baselines (95%) | "
        "held-out cases | looks | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in found:
        judged = r["judgement"]
        held = [c["case"] for c in r["cases"] if c["role"] == "held-out"]
        moved = [c["case"] for c in r["cases"] if c["moved"]]
        ours = judged["means"].get(r["method"])
        shown_ours = f"{r['method']} {_value(ours)}" if ours else "—"
        effects = "; ".join(
            f"vs {b}: {_effect_cell(e, r['relative'])}" for b, e in judged["effects"].items()
        )
        cases = f"{len(held)} ({judged['replicates']} replicates)"
        if moved:
            cases += f"; moved to development: {', '.join(moved)}"
        lines.append(
            f"| {r['substrate']} | {r['study']} | {cell(r['claim'])} | "
            f"{cell(r['seed_figure'])} | {shown_ours} | {effects or '—'} | {cases} | "
            f"{looks.get(r['study'], 0)} | **{judged['outcome']}** |"
        )
    recorded = {r["study"] for r in found}
    for study in declared:
        if study.name in recorded:
            continue
        held = [c.name for c in study.cases if c.role == "held-out"]
        lines.append(
            f"| {study.substrate} | {study.name} | {cell(study.claim)} | "
            f"{cell(study.seed_figure)} | — | — | {len(held)} ({', '.join(held)}) | "
            f"{looks.get(study.name, 0)} | **not run** (`python -m substrates.studies run "
            f"{study.name}`) |"
        )
    return "\n".join(lines)


def looks_table(looks: Iterable[Look]) -> str:
    """Every look at a held-out case, oldest first, with its result."""
    lines = [
        "| study | case | look | date | commit | where it was recorded | means |",
        "|---|---|---|---|---|---|---|",
    ]
    for look in looks:
        means = ", ".join(f"{m} {v:.4g}" for m, v in look.result.items())
        lines.append(
            f"| {look.study} | {look.case} | {look.look} | {look.date[:10]} | "
            f"{(look.commit or '—')[:8]} | {cell(look.origin)} | {cell(means)} |"
        )
    return "\n".join(lines)


def _effect_cell(e: Mapping[str, float], relative: bool) -> str:
    def shown(x: float) -> str:
        return f"{100 * x:+.1f}%" if relative else f"{x:+.3g}"

    bounded = all(map(lambda x: x == x and abs(x) != float("inf"), (e["low"], e["high"])))
    inside = f" ({shown(e['low'])} to {shown(e['high'])})" if bounded else " (no interval)"
    return (shown(e["value"]) + inside).replace("-", "−")


def write_block(page: str | Path, name: str, text: str) -> None:
    """Replace the page's `<!-- studies: name -->` block with `text` (atomically)."""
    path = Path(page)
    start, end = f"<!-- studies: {name} -->", f"<!-- /studies: {name} -->"
    content = path.read_text()
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(content):
        raise SubstratesError(f"{path} has no block {start} … {end}")
    replaced = pattern.sub(lambda _: f"{start}\n{text}\n{end}", content)
    RunFolder(path.parent).write_text(path.name, replaced)


def study_json(study: Study) -> str:
    """The declaration of `study` as JSON (for `show`)."""
    return json.dumps(
        {
            "study": study.name,
            "substrate": study.substrate,
            "claim": study.claim,
            "seed_figure": study.seed_figure,
            "goal": study.goal.text(),
            "replicate": study.replicate,
            "settings": dict(study.settings),
            "sources": list(study.sources),
            "cases": [
                {
                    "case": c.name,
                    "role": c.role,
                    "parameters": dict(c.parameters),
                    "shares": c.shares,
                    "differs": c.differs,
                }
                for c in study.cases
            ],
            "notes": study.notes,
        },
        indent=2,
        default=str,
    )
