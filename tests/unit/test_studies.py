"""The study runner: verdicts from the numbers, the ledger of looks, a case moved to
development once a setting changed after a held-out look, resuming, failures, and the
command line on the CRN study's smoke cases."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from substrates.studies.cli import main
from substrates.studies.declaration import Case, Goal, Study, parse_settings
from substrates.studies.judge import judge
from substrates.studies.ledger import Ledger
from substrates.studies.runner import run_study

CALLS: list[str] = []


def toy_case(case: Case, settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Twelve units per case; the method scores `skill` above the baseline, with noise
    drawn from the case's seed; a case with `broken` raises."""
    CALLS.append(case.name)
    if case.parameters.get("broken"):
        raise RuntimeError("the simulator crashed")
    rng = np.random.default_rng(case.parameters["seed"])
    rows = []
    for unit in range(12):
        base = rng.uniform(0.5, 0.7)
        noise = rng.normal(0, 0.01)
        rows.append({"method": "ours", "unit": unit, "score": base + settings["skill"] + noise})
        rows.append({"method": "baseline", "unit": unit, "score": base})
    return rows


def toy(*cases: Case, skill: float = 0.1) -> Study:
    return Study(
        name="toy",
        substrate="crn",
        claim="ours beats the baseline",
        seed_figure="none",
        goal=Goal("score", "ours", ("baseline",), margin=0.05),
        replicate="unit",
        cases=cases,
        settings={"skill": skill},
        sources=("studies/judge.py",),
        run_case=toy_case,
    )


HELD = Case("seed-1", "held-out", {"seed": 1})
DEVELOPMENT = Case("seed-0", "development", {"seed": 0})


def rows_of(method_scores: dict[str, list[float]], case: str = "a") -> list[dict[str, Any]]:
    return [
        {"case": case, "unit": k, "method": m, "score": s}
        for m, scores in method_scores.items()
        for k, s in enumerate(scores)
    ]


def test_a_tie_with_the_majority_guess_is_a_fail() -> None:
    rng = np.random.default_rng(3)
    fit = list(0.5 + rng.normal(0, 0.01, 40))
    goal = Goal("score", "fit", ("majority",), margin=0.05)
    judged = judge(rows_of({"fit": fit, "majority": [0.5] * 40}), goal, "unit")
    assert judged.outcome == "FAIL"
    assert judged.effects["majority"].high < 0.05
    assert judged.line.startswith("FAIL — fit: vs majority")


def test_a_clear_gain_passes_and_an_interval_across_the_margin_cannot_tell() -> None:
    goal = Goal("score", "fit", ("threshold",), margin=0.05)
    rng = np.random.default_rng(4)
    base = list(rng.uniform(0.5, 0.7, 30))
    clear = judge(rows_of({"fit": [b + 0.2 for b in base], "threshold": base}), goal, "unit")
    assert clear.outcome == "PASS" and clear.effects["threshold"].low >= 0.05
    noisy = [b + 0.05 + rng.normal(0, 0.1) for b in base]
    unsure = judge(rows_of({"fit": noisy, "threshold": base}), goal, "unit")
    assert unsure.outcome == "CANNOT TELL"
    assert unsure.effects["threshold"].low < 0.05 <= unsure.effects["threshold"].high


def test_too_few_replicates_or_one_realisation_cannot_tell() -> None:
    goal = Goal("score", "pnp", ("idw",), better="lower", margin=0.05, relative=True)
    hours = rows_of({"pnp": [1.0] * 24, "idw": [2.0] * 24})
    # hours of one realisation are not independent: one case, no interval
    judged = judge(hours, goal, "case")
    assert judged.outcome == "CANNOT TELL" and not judged.effects["idw"].bounded
    assert judged.effects["idw"].value == pytest.approx(0.5)
    few = Goal("score", "fit", ("majority",), min_replicates=50)
    assert judge(rows_of({"fit": [0.9] * 20, "majority": [0.5] * 20}), few, "unit").outcome == (
        "CANNOT TELL"
    )


def test_cases_are_clusters_resampled_with_their_replicates() -> None:
    """Two cases whose effects disagree: the cluster-aware interval is wider than the one
    that pools their units as if independent."""
    goal = Goal("score", "fit", ("base",))
    rows = rows_of({"fit": [0.9] * 20, "base": [0.5] * 20}, "good") + rows_of(
        {"fit": [0.5] * 20, "base": [0.5] * 20}, "bad"
    )
    clustered = judge(rows, goal, "unit").effects["base"]
    pooled = judge([{**r, "case": "one"} for r in rows], goal, "unit").effects["base"]
    assert clustered.high - clustered.low > 2 * (pooled.high - pooled.low)


def test_looks_are_counted_and_a_changed_setting_moves_the_case_to_development(tmp_path):
    first = run_study(toy(HELD, DEVELOPMENT), tmp_path, log=lambda _: None)
    assert first.judgement.outcome == "PASS"
    looks = Ledger(tmp_path / "ledger.jsonl").looks("toy")
    assert [(look.case, look.look) for look in looks] == [("seed-1", 1)]  # development: none
    assert looks[0].settings == {"skill": 0.1} and looks[0].result["ours"] > 0.6

    again = run_study(toy(HELD, DEVELOPMENT), tmp_path, log=lambda _: None)
    assert [s.look for s in again.statuses if s.case == HELD] == [1]  # a repeat, not a look
    assert len(Ledger(tmp_path / "ledger.jsonl").looks("toy")) == 1

    # the skill setting chosen after the held-out look: seed-1 is development from now on
    chosen = run_study(
        toy(HELD, DEVELOPMENT), tmp_path, settings={"skill": 0.3}, log=lambda _: None
    )
    (status,) = [s for s in chosen.statuses if s.case == HELD]
    assert status.role == "development"
    assert status.moved is not None and "skill=0.1" in status.moved
    assert chosen.judgement.outcome == "CANNOT TELL"  # no held-out case is left
    record = json.loads((tmp_path / "toy.json").read_text())
    assert [c["role"] for c in record["cases"]] == ["development", "development"]


def test_a_finished_case_is_read_back_not_run_again(tmp_path) -> None:
    CALLS.clear()
    run_study(toy(HELD, DEVELOPMENT), tmp_path, log=lambda _: None)
    run_study(toy(HELD, DEVELOPMENT), tmp_path, log=lambda _: None)
    assert CALLS == ["seed-1", "seed-0"]
    (tmp_path / "toy.parquet").unlink()
    assert run_study(toy(HELD), tmp_path, log=lambda _: None).judgement.outcome == "PASS"
    assert CALLS == ["seed-1", "seed-0"]


def test_a_held_out_case_that_fails_leaves_the_verdict_unable_to_tell(tmp_path) -> None:
    broken = Case("seed-2", "held-out", {"seed": 2, "broken": True})
    report = run_study(toy(HELD, broken), tmp_path, log=lambda _: None)
    assert report.failed == {"seed-2": "RuntimeError: the simulator crashed"}
    assert report.judgement.outcome == "CANNOT TELL"
    assert "failed to run: seed-2" in report.judgement.line
    assert not list((tmp_path / "toy").glob("seed-2-*"))  # nothing kept of it


def test_settings_are_read_as_their_defaults_types() -> None:
    study = toy(HELD)
    assert parse_settings(study, ["skill=0.25"]) == {"skill": 0.25}
    with pytest.raises(ValueError, match="KEY one of: skill"):
        parse_settings(study, ["speed=2"])
    with pytest.raises(ValueError, match="expected a float"):
        parse_settings(study, ["skill=lots"])


def test_a_case_named_twice_or_badly_is_refused() -> None:
    with pytest.raises(ValueError, match="repeat"):
        toy(HELD, HELD)
    with pytest.raises(ValueError, match="no slashes"):
        Case("a/b", "held-out")
    with pytest.raises(ValueError, match="role"):
        Case("a", "test")  # type: ignore[arg-type]


def test_the_command_line_lists_runs_and_exits_on_its_verdict(tmp_path, capsys) -> None:
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "| crn-exact | crn |" in listed and "| mea-array-fit | mea |" in listed
    assert "lab-13-110" in listed

    code = main(["run", "crn-exact", "--smoke", "--results", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 4  # five smoke networks: fewer replicates than the goal needs
    assert out.splitlines()[-1].startswith("Verdict: CANNOT TELL — crn: vs exact")
    assert "| smoke-asia | held-out |" in out
    assert not (tmp_path / "ledger.jsonl").exists()  # smoke runs are never looks

    assert main(["run", "crn-exact", "--set", "noise=2x"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --set noise=2x: expected a float like 0.1")
    assert main(["run", "crn-exact", "--cases", "win95pts", "--smoke"]) == 2
    assert "no smoke cases win95pts" in capsys.readouterr().err


def test_again_reproduces_a_finished_case_as_the_same_look(tmp_path) -> None:
    CALLS.clear()
    first = run_study(toy(HELD), tmp_path, log=lambda _: None)
    again = run_study(toy(HELD), tmp_path, again=True, log=lambda _: None)
    assert CALLS == ["seed-1", "seed-1"]
    assert again.rows == first.rows and again.judgement == first.judgement
    looks = Ledger(tmp_path / "ledger.jsonl").looks("toy", "seed-1")
    assert [look.look for look in looks] == [1, 1]  # recorded twice, one look


def test_the_quantum_study_s_smoke_case_gives_every_method_the_same_tables(tmp_path) -> None:
    from substrates.studies.claims import get

    report = run_study(get("qrim-search"), tmp_path, smoke=True, log=lambda _: None)
    by_table: dict[int, dict[str, dict[str, Any]]] = {}
    for row in report.rows:
        by_table.setdefault(row["table"], {})[row["method"]] = row
    assert len(by_table) == 4
    for rows in by_table.values():
        assert rows["exhaustive"]["exact"] == 1.0 and rows["exhaustive"]["budget"] == 16
        assert rows["random search"]["budget"] == rows["qrim"]["budget"]


def test_the_cml_study_scores_only_the_scored_cells_of_every_map() -> None:
    xr = pytest.importorskip("xarray")
    from substrates.studies.claims.cml_fresh import _rmse

    truth = np.array([[[1.0, 2.0], [3.0, np.nan]], [[0.0, 1.0], [1.0, 1.0]]])
    idw = truth + np.array([[[1.0, 1.0], [9.0, 0.0]], [[-1.0, 1.0], [9.0, 9.0]]])
    fields = xr.Dataset(
        {
            "rain_reference": (("time", "y", "x"), truth),
            "rain_idw": (("time", "y", "x"), idw),
            "scored": (("y", "x"), np.array([[1, 1], [0, 1]])),
        }
    )
    (row,) = _rmse(fields, ("idw",), " (true baseline)")
    # scored and finite: (0,0), (0,1) and (1,1) of the second map only where truth is finite
    errors = np.array([1.0, 1.0, -1.0, 1.0, 9.0])
    assert row["method"] == "idw (true baseline)" and row["cells"] == 5
    assert row["rmse_mm_h"] == pytest.approx(np.sqrt(np.mean(errors**2)))


def test_cases_run_on_an_executor_s_processes_as_in_this_one(tmp_path) -> None:
    """The process pool the sweeps use (hardware_configs/cluster_local.yaml) runs a study's
    cases in worker processes, with the same rows as this process."""
    from substrates.studies.claims import get

    study = get("qrim-search")
    here = run_study(study, tmp_path / "here", smoke=True, log=lambda _: None)
    pooled = run_study(
        study, tmp_path / "pool", smoke=True, executor="cluster_local", log=lambda _: None
    )
    assert pooled.rows == here.rows


def test_a_damaged_ledger_or_an_unwritable_folder_is_one_line(tmp_path, capsys) -> None:
    (tmp_path / "ledger.jsonl").write_text('{"study": "crn-exact"\n')
    assert main(["ledger", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "line 1 is not a look" in err and err.count("\n") == 1
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["run", "qrim-search", "--smoke", "--results", str(blocked)]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_a_run_of_some_cases_judges_every_case_finished_before(tmp_path) -> None:
    CALLS.clear()
    run_study(toy(HELD, DEVELOPMENT), tmp_path, cases=["seed-1"], log=lambda _: None)
    later = run_study(toy(HELD, DEVELOPMENT), tmp_path, cases=["seed-0"], log=lambda _: None)
    assert CALLS == ["seed-1", "seed-0"]
    assert {s.case.name for s in later.statuses} == {"seed-1", "seed-0"}
    assert later.judgement.outcome == "PASS"  # seed-1's rows, read back, are judged
    record = json.loads((tmp_path / "toy.json").read_text())
    assert {c["case"] for c in record["cases"]} == {"seed-1", "seed-0"}
