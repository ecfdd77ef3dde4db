"""A study's verdict from its own numbers: each method's mean with its interval, the
effect of the method under test against every baseline, paired replicate by replicate,
and PASS / FAIL / CANNOT TELL.

Intervals are 95% percentile bootstraps across independent replicates. Where the
replicates are rows within cases (units of a session, networks of a collection) the
bootstrap is cluster-aware: it resamples the cases, then the replicates within each drawn
case. Where only whole cases are independent (replicate 'case': hours of one rain
realisation are not independent), rows are averaged per case first and the cases are
resampled; one case then has no interval, and the verdict cannot tell.

The verdict against one baseline: PASS when the interval's worse end still meets the
margin, FAIL when its better end misses it (a tie with a baseline, a margin above zero:
FAIL), CANNOT TELL between or with too few replicates. Against several baselines the
gravest outcome wins.

    >>> rows = [{"case": "a", "unit": u, "method": m, "score": s}
    ...         for u in range(20) for m, s in (("fit", 0.9), ("majority", 0.5))]
    >>> from substrates.studies.declaration import Goal
    >>> judged = judge(rows, Goal("score", "fit", ("majority",), margin=0.1), "unit")
    >>> judged.outcome, f"{judged.effects['majority'].value:.2f}"
    ('PASS', '0.40')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from .declaration import Goal

Outcome = Literal["PASS", "FAIL", "CANNOT TELL"]
GRAVITY: tuple[Outcome, ...] = ("FAIL", "CANNOT TELL", "PASS")
DRAWS = 4000
"""Bootstrap draws of every interval."""
SEED = 0
"""The bootstrap's seed: the same rows give the same interval."""


@dataclass(frozen=True)
class Estimate:
    """A mean (or an effect) and its 95% interval (NaN where there is none)."""

    value: float
    low: float
    high: float

    @property
    def bounded(self) -> bool:
        return bool(np.isfinite(self.low) and np.isfinite(self.high))

    def to_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Judgement:
    """outcome and the line that says why; means: each method's mean metric; effects:
    the method's effect against each baseline (positive: the method is better; relative
    goals as fractions); replicates: independent replicates scored; dropped: pairs left
    out for a missing (NaN) value."""

    outcome: Outcome
    line: str
    means: Mapping[str, Estimate]
    effects: Mapping[str, Estimate]
    replicates: int
    dropped: int

    def unfinished(self, cases: Sequence[str]) -> Judgement:
        """This judgement when held-out `cases` failed to run: it cannot tell."""
        line = f"CANNOT TELL — held-out cases failed to run: {', '.join(cases)}; {self.line}"
        return replace(self, outcome="CANNOT TELL", line=line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "line": self.line,
            "means": {k: v.to_dict() for k, v in self.means.items()},
            "effects": {k: v.to_dict() for k, v in self.effects.items()},
            "replicates": self.replicates,
            "dropped": self.dropped,
        }


def _clusters(
    rows: Iterable[Mapping[str, Any]], metric: str, methods: Sequence[str], replicate: str
) -> tuple[list[np.ndarray], int]:
    """Per case, an array (replicates, methods) of the metric, keeping the replicates that
    have a finite value for every one of `methods`; and how many were dropped. With
    replicate 'case', each case is one replicate (its rows averaged per method)."""
    table: dict[Any, dict[Any, dict[str, list[float]]]] = {}
    for row in rows:
        if row["method"] not in methods:
            continue
        key = row["case"] if replicate == "case" else row[replicate]
        cell = table.setdefault(row["case"], {}).setdefault(key, {})
        cell.setdefault(row["method"], []).append(float(row[metric]))
    clusters, dropped = [], 0
    for by_replicate in table.values():
        kept = []
        for values in by_replicate.values():
            means = np.array([np.mean(values[m]) if m in values else np.nan for m in methods])
            if np.all(np.isfinite(means)):
                kept.append(means)
            else:
                dropped += 1
        if kept:
            clusters.append(np.array(kept))
    return clusters, dropped


def _draws(clusters: list[np.ndarray], resample_within: bool) -> np.ndarray:
    """(DRAWS, methods) means of cluster-aware bootstrap samples."""
    rng = np.random.default_rng(SEED)
    out = np.empty((DRAWS, clusters[0].shape[1]))
    for d in range(DRAWS):
        chosen = rng.integers(len(clusters), size=len(clusters))
        parts = []
        for c in chosen:
            block = clusters[c]
            parts.append(
                block[rng.integers(len(block), size=len(block))] if resample_within else block
            )
        out[d] = np.concatenate(parts).mean(axis=0)
    return out


def _effect(means: np.ndarray, goal: Goal) -> np.ndarray:
    """The method's effect against the baseline (column 0 against column 1) for each row
    of means: positive when the method is better."""
    method, baseline = means[..., 0], means[..., 1]
    if goal.relative:
        with np.errstate(divide="ignore", invalid="ignore"):
            change = method / baseline - 1.0
    else:
        change = method - baseline
    return change if goal.better == "higher" else -change


def _estimate(point: float, draws: np.ndarray | None) -> Estimate:
    if draws is None:
        return Estimate(point, float("nan"), float("nan"))
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return Estimate(point, float(low), float(high))


def judge(rows: Sequence[Mapping[str, Any]], goal: Goal, replicate: str) -> Judgement:
    """The verdict of `goal` on held-out `rows` (see the module doc)."""
    methods = [goal.method, *goal.baselines]
    clusters, dropped = _clusters(rows, goal.metric, methods, replicate)
    replicates = sum(len(c) for c in clusters)
    if not clusters:
        missing = "no held-out rows with every method's value"
        empty = {m: Estimate(*(float("nan"),) * 3) for m in methods}
        return Judgement("CANNOT TELL", missing, empty, {}, 0, dropped)
    within = replicate != "case"
    bounded = len(clusters) > 1 or (within and len(clusters[0]) > 1)
    draws = _draws(clusters, within) if bounded else None
    point = np.concatenate(clusters).mean(axis=0)
    means = {
        m: _estimate(float(point[k]), None if draws is None else draws[:, k])
        for k, m in enumerate(methods)
    }
    effects = {}
    verdicts: list[Outcome] = []
    for k, baseline in enumerate(goal.baselines, start=1):
        pair = [0, k]
        estimate = _estimate(
            float(_effect(point[pair], goal)),
            None if draws is None else _effect(draws[:, pair], goal),
        )
        effects[baseline] = estimate
        if not estimate.bounded or replicates < goal.min_replicates:
            verdicts.append("CANNOT TELL")
        elif estimate.low >= goal.margin:
            verdicts.append("PASS")
        elif estimate.high < goal.margin:
            verdicts.append("FAIL")
        else:
            verdicts.append("CANNOT TELL")
    outcome = min(verdicts, key=GRAVITY.index)
    return Judgement(
        outcome, _line(outcome, goal, effects, replicates), means, effects, replicates, dropped
    )


def effect_text(estimate: Estimate, goal: Goal) -> str:
    """'+3.1% (+1.0 to +5.2)', or '+0.031 (…)' for an absolute goal; 'no interval'."""

    def shown(x: float) -> str:
        return f"{100 * x:+.1f}%" if goal.relative else f"{x:+.3g}"

    inside = (
        f"{shown(estimate.low)} to {shown(estimate.high)}" if estimate.bounded else "no interval"
    )
    return f"{shown(estimate.value)} ({inside})".replace("-", "−")


def _line(outcome: Outcome, goal: Goal, effects: Mapping[str, Estimate], replicates: int) -> str:
    said = "; ".join(f"vs {b} {effect_text(e, goal)}" for b, e in effects.items())
    few = (
        f"; {replicates} held-out replicates, fewer than the {goal.min_replicates} it needs"
        if replicates < goal.min_replicates
        else f"; {replicates} held-out replicates"
    )
    return f"{outcome} — {goal.method}: {said}{few} (goal: {goal.text()})"
