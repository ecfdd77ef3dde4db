"""What an hh-fit run reports of its fitted cells: a results row per parameter, candidate
and pattern, each pattern's true outcome where a simulator knows it (scoring only), and the
summary over cells."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ...backends.mea.base import GroundTruth
from ...datasets.mea.recording import Recording
from ...errors import SubstratesError
from .artefacts import Artefacts
from .fit import CellFit


def true_outcomes(data: Recording, cell: GroundTruth) -> dict[Any, float]:
    """Pattern → the fraction of its trials that truly made `cell` spike (the
    simulator's record: it scores the prediction, never feeds the fit)."""
    from .patterns import responses

    return {r.pattern: r.probability for r in responses(data, cell.evoked)}


def result_rows(
    cell: int,
    fit: CellFit,
    truth: dict[str, float] | None,
    outcomes: dict[Any, float] | None = None,
    session: str = "",
) -> list[dict[str, Any]]:
    """results.parquet's rows of one fitted cell of `session` (the recording it came from:
    patterns of one session, or of one cell, are not independent; cluster_interval);
    `outcomes`: each pattern's true spike probability where the simulator knows it
    (columns true_probability, correct_vs_truth)."""
    rows: list[dict[str, Any]] = []
    mean, sd = fit.posterior.spread(fit.parameters)
    for k, p in enumerate(fit.parameters):
        rows.append(
            {
                "cell": cell,
                "kind": "parameter",
                "name": p.name,
                "description": p.description,
                "prior_low": p.low,
                "prior_high": p.high,
                "truth": None if truth is None else truth[p.name],
                "npe_best": float(fit.posterior.best[k]),
                "npe_mean": float(mean[k]),
                "npe_sd": float(sd[k]),
                "refined": float(fit.refined.theta[k]),
                "calibrated": float(fit.candidates["calibrated"][k]),
                "fitted": float(fit.theta[k]),
                "chosen": fit.chosen,
            }
        )
    for name, theta in fit.candidates.items():  # what each candidate would have given
        rows.append(
            {
                "cell": cell,
                "kind": "candidate",
                "name": name,
                "chosen": fit.chosen,
                "score": fit.scores[name],
                "held_out_accuracy": fit.accuracy_held_out_of(name),
                "error_prior_fraction": None
                if truth is None
                else error_prior_fraction(fit, theta, truth),
            }
        )
    sets: list[tuple[str, list[Any], np.ndarray, dict[str, np.ndarray]]] = [
        ("fitting", fit.fitting, fit.predicted_fitting, {}),  # candidates: held-out only
        ("held-out", fit.held_out, fit.predicted_held_out, fit.predicted_held_out_by),
    ]
    for group, found, predicted, by in sets:
        for k, (r, spike) in enumerate(zip(found, predicted, strict=True)):
            rows.append(
                {
                    "cell": cell,
                    "kind": "pattern",
                    "name": r.pattern.label(),
                    "set": group,
                    "electrodes": len(r.pattern.channels),
                    "total_current_ua": float(np.abs(r.pattern.currents_ua).sum()),
                    "trials": r.trials,
                    "spikes": r.spikes,
                    "observed_probability": r.probability,
                    "predicted_spike": bool(spike),
                    "correct": bool(spike) == (r.probability > 0.5),
                    **{f"predicted_{c}": bool(v[k]) for c, v in by.items()},
                }
            )
            if outcomes is not None and r.pattern in outcomes:
                rows[-1]["true_probability"] = outcomes[r.pattern]
                rows[-1]["correct_vs_truth"] = bool(spike) == (outcomes[r.pattern] > 0.5)
    return [{"session": session, **row} for row in rows]


def cluster_interval(
    outcomes: Sequence[bool],
    sessions: Sequence[object],
    cells: Sequence[object],
    replicates: int = 4000,
    seed: int = 0,
) -> tuple[float, float]:
    """The 95% interval of the proportion of `outcomes` that are true, when outcomes of
    one cell, and cells of one session, are alike (a two-stage cluster bootstrap:
    sessions drawn with replacement, then the cells of each drawn session, their
    outcomes pooled; percentile interval). With one outcome per session it is the
    ordinary bootstrap; with every session's outcomes equal it is as wide as the
    sessions alone allow.

    >>> right = [True] * 90 + [False] * 10
    >>> low, high = cluster_interval(right, list(range(100)), list(range(100)))
    >>> 0.83 < low < 0.86 and 0.94 < high < 0.97
    True
    >>> low, high = cluster_interval(right, [k // 10 for k in range(100)], [0] * 100)
    >>> round(low, 2), round(high, 2)  # ten sessions, each all right or all wrong
    (0.7, 1.0)
    """
    right = np.asarray(outcomes, float)
    session_ids = np.unique(np.asarray(sessions, object).astype(str), return_inverse=True)[1]
    cell_keys = [f"{s}\x00{c}" for s, c in zip(session_ids, cells, strict=True)]
    cell_ids = np.unique(cell_keys, return_inverse=True)[1]
    groups = [np.unique(cell_ids[session_ids == s]) for s in range(session_ids.max() + 1)]
    sizes = np.array([len(g) for g in groups])
    padded = np.zeros((len(groups), sizes.max()), np.int64)
    for s, group in enumerate(groups):
        padded[s, : len(group)] = group
    totals = np.bincount(cell_ids, weights=right)
    counts = np.bincount(cell_ids).astype(float)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, len(groups), (replicates, len(groups)))  # sessions
    size = sizes[drawn][..., None]
    pick = (rng.random((*drawn.shape, sizes.max())) * size).astype(np.int64)  # their cells
    chosen = padded[drawn[..., None], pick]
    inside = np.arange(sizes.max()) < size
    estimates = (totals[chosen] * inside).sum(axis=(1, 2)) / (counts[chosen] * inside).sum(
        axis=(1, 2)
    )
    low, high = np.percentile(estimates, [2.5, 97.5])
    return float(low), float(high)


def error_prior_fraction(fit: CellFit, theta: np.ndarray, truth: dict[str, float]) -> float:
    """Mean distance of `theta` from the truth, each parameter in its prior's width."""
    return float(
        np.mean(
            [
                p.distance(v, truth[p.name]) / (p.high - p.low)
                for p, v in zip(fit.parameters, theta, strict=True)
            ]
        )
    )


def results_table(rows: list[dict[str, Any]], where: str) -> pa.Table:
    """results.parquet from result_rows' rows (every column in every row, None where a
    kind of row has none); refused when no cell or unit was fitted."""
    if not rows:
        raise SubstratesError(
            f"{where}: no sorted unit had the spikes and evoked responses to fit (see "
            "provenance.json: sorting)"
        )
    columns = list(dict.fromkeys(key for row in rows for key in row))  # parameters', patterns'
    return pa.Table.from_pylist([{key: row.get(key) for key in columns} for row in rows])


def summary(
    fits: list[tuple[CellFit, dict[str, float] | None]],
    sortings: Sequence[dict[str, Any]] = (),
    removed: Sequence[Artefacts] = (),
) -> dict[str, Any]:
    """The run's headline over its fitted cells: held-out and fitting accuracy (each
    candidate's and baseline's too), the error of each estimate in prior widths where the
    truth is known; with `sortings`, units fitted and sorting accuracy; with `removed`
    (each session's stimulation artefact), its peak (µV) and saturated fraction."""
    held = [f.accuracy_held_out for f, _ in fits]
    headline: dict[str, Any] = {
        "cells": len(fits),
        "held_out_patterns": int(sum(len(f.held_out) for f, _ in fits)),
        "mean_held_out_accuracy": float(np.nanmean(held)),
        "mean_fitting_accuracy": float(np.nanmean([f.accuracy_fitting for f, _ in fits])),
        "chosen": ",".join(f.chosen for f, _ in fits),
    }
    for name in fits[0][0].predicted_held_out_by:  # candidates, then baselines
        accuracy = [f.accuracy_held_out_of(name) for f, _ in fits]
        headline[f"mean_held_out_accuracy_{name}"] = float(np.nanmean(accuracy))
    known = [(f, t) for f, t in fits if t is not None]  # sorted units may match no cell
    for name in ("npe", "refined", "calibrated", "fitted") if known else ():
        errors = [
            error_prior_fraction(f, f.theta if name == "fitted" else f.candidates[name], t)
            for f, t in known
        ]
        headline[f"mean_error_{name}_prior_fraction"] = float(np.mean(errors))
    if sortings:
        headline["units_fitted"] = len(fits)
        scores = [s["accuracy"] for r in sortings for s in r.get("scores", [])]
        if scores:
            headline["mean_sorting_accuracy"] = float(np.mean(scores))
    if removed:  # what artefact removal took away, over every cell's session
        headline["artefact_peak_uv"] = max(a.peak_uv for a in removed)
        headline["artefact_saturated_fraction"] = float(
            np.mean([a.saturated_fraction for a in removed])
        )
    return headline
