"""benchmarks/mea_study.py ends with a verdict a condition, and exits 1 unless each
condition's fitted cells reach the goal and beat every baseline on every session."""

from __future__ import annotations

import importlib

import pytest

from .cli import BENCHMARKS


@pytest.fixture
def study(monkeypatch):
    pytest.importorskip("pyarrow")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("mea_study")


def fitted(
    accuracy: float,
    threshold: float,
    logistic: float,
    majority: float,
    refused: tuple[str, ...] = (),
):
    from mea_runs import Fitted

    summary = {
        "mean_held_out_accuracy": accuracy,
        "mean_held_out_accuracy_threshold_baseline": threshold,
        "mean_held_out_accuracy_logistic_baseline": logistic,
        "mean_held_out_accuracy_majority": majority,
    }
    return Fitted(summary, [], [], (0.0, 1.0), 1.0, list(refused))


def test_a_condition_passes_at_the_goal_above_every_baseline(study, capsys) -> None:
    passed, line = study.verdict("none", fitted(0.93, 0.70, 0.88, 0.80))
    assert passed and line.startswith("PASS — none: mean held-out accuracy 93.0%")
    assert "logistic baseline, 88.0%" in line
    assert study.concluded([(passed, line)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "Verdict: PASS — every condition (1)"


@pytest.mark.parametrize(
    ("accuracy", "logistic"),
    [(0.89, 0.70), (0.95, 0.96)],
    ids=["under the goal", "under a baseline"],
)
def test_a_condition_fails_under_the_goal_or_a_baseline(study, capsys, accuracy, logistic):
    good = study.verdict("none", fitted(0.93, 0.70, 0.88, 0.80))
    passed, line = study.verdict("morphology", fitted(accuracy, 0.70, logistic, 0.80))
    assert not passed and line.startswith("FAIL — morphology")
    assert study.concluded([good, (passed, line)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "Verdict: FAIL — 1 of 2 conditions under the goal"


def test_a_refused_session_fails_its_condition_by_name(study) -> None:
    """A condition whose fitted cells pass but one of whose sessions hh-fit refused
    cannot tell how the fit does there: it fails, and says why."""
    why = "seed 142: 0 spontaneous spikes found before and between pulses"
    passed, line = study.verdict("large arbor", fitted(0.95, 0.70, 0.80, 0.75, (why,)))
    assert not passed and line.startswith("FAIL — large arbor: mean held-out accuracy 95.0%")
    assert line.endswith(f"1 session refused, so it cannot tell for them ({why})")


def test_a_condition_with_every_session_refused_is_a_row_of_dashes_and_fails(study) -> None:
    from mea_runs import Fitted

    why = "every session was refused: seed 140: 0 spontaneous spikes found"
    nothing = Fitted({}, [], [], (float("nan"), float("nan")), 2.0, [why])
    cells = study.row("large arbor", nothing, "10 µm soma").strip("|").split("|")
    assert len(cells) == len(study.COLUMNS) + 1  # the mismatch case's severity column
    assert cells[2].strip() == "0 (every session refused)" and cells[-1].strip() == "2"
    assert {c.strip() for c in cells[3:-1]} == {"—"}
    passed, line = study.verdict("large arbor", nothing)
    assert not passed and line == f"FAIL (cannot tell) — large arbor: {why}"
