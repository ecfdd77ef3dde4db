"""The verdict of a validation: each comparison against its tolerance, the gravest failing
one named with its variable; judged on a real validation (Asia on crn.ode) whose numbers
are then changed one at a time, as a broken simulator or reduction would change them."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from substrates.verdicts import EXIT_CODES, Check, Verdict


@pytest.fixture(scope="module")
def asia():
    from substrates.backends.registry import create_backend
    from substrates.datasets.crn.files import example_path, read_graph
    from substrates.models.crn.validate import Analyses, validate_reduction

    graph = read_graph(example_path())
    analyses = Analyses(levels=(), samples=0, starts=2)
    return validate_reduction(graph, create_backend("crn.ode"), analyses=analyses)


def test_asia_is_valid_and_each_kind_of_failure_is_named(asia) -> None:
    from substrates.models.crn.verdict import Tolerances, judge

    tolerances = Tolerances()
    verdict = judge(asia, tolerances)
    assert verdict.outcome == "valid" and verdict.exit_code == 0
    assert all(c.passed for c in verdict.checks)

    moved = [b.copy() for b in asia.beliefs["crn_reduced"]]
    moved[-1] = moved[-1][::-1].copy()  # a reduced CRN resting at another point
    broken = dataclasses.replace(asia, beliefs={**asia.beliefs, "crn_reduced": moved})
    verdict = judge(broken, tolerances)
    assert verdict.outcome == "not valid" and verdict.exit_code == 3
    assert verdict.deciding.name.startswith("crn_reduced vs")
    assert verdict.deciding.where == asia.survivors[-1]

    lossy = dataclasses.replace(asia, conservation_error={"crn_original": 0.32})
    verdict = judge(lossy, tolerances)
    assert verdict.outcome == "cannot tell" and verdict.exit_code == 4
    assert "conservation of crn_original 3.20e-01 > 1e-06" in verdict.line()

    slow = {k: {**v, "relaxation_time": 2.76e15} for k, v in asia.robustness.items()}
    assert all(asia.verified.values())  # crn.ode's continuation: Newton confirmed each rest
    assert judge(dataclasses.replace(asia, robustness=slow), tolerances).outcome == "valid"
    unconfirmed = dataclasses.replace(asia, robustness=slow, verified={})  # as integrating
    verdict = judge(unconfirmed, tolerances)
    assert verdict.outcome == "cannot tell" and "relaxation time τ" in verdict.line()

    two = {
        k: {**v, "basins": {**v["basins"], "fixed_points": 2}} for k, v in asia.robustness.items()
    }
    verdict = judge(dataclasses.replace(asia, robustness=two), tolerances)
    assert verdict.outcome == "cannot tell" and "extra fixed points" in verdict.line()

    why = "crn.ode: no steady state by t = 10 (max |dx/dt| = 1.2e-03 > 1e-13)"
    gone = dataclasses.replace(
        asia,
        beliefs={**asia.beliefs, "crn_original": None},
        residual={"crn_original": 1.2e-3},
        unrested={"crn_original": why},
    )
    verdict = judge(gone, tolerances)
    assert verdict.outcome == "cannot tell"
    assert (
        verdict.line()
        == f"verdict: cannot tell: the rest of crn_original: could not be measured ({why})"
    )

    both = {**asia.beliefs, "crn_reduced": moved, "crn_original": moved}
    at_fixed_points = {"crn_original": 1e-15, "crn_reduced": 1e-15}
    another = dataclasses.replace(asia, beliefs=both, bp_residual_at_rest=at_fixed_points)
    verdict = judge(another, tolerances)  # BP's equations hold there: another fixed point
    assert verdict.outcome == "cannot tell" and verdict.deciding.name.endswith("vs bp")
    boundary = dataclasses.replace(broken, bp_residual_at_rest={"crn_reduced": math.inf})
    verdict = judge(boundary, tolerances)  # they do not: a boundary equilibrium
    assert verdict.outcome == "not valid"
    assert verdict.deciding.name == "BP's equations at crn_reduced's rest"

    unsettled = dataclasses.replace(asia, residual={"crn_original": 1e-3})
    assert judge(unsettled, tolerances).outcome == "cannot tell"
    assert judge(unsettled, tolerances, stochastic=True).outcome == "valid"  # time averages


def test_loopy_bp_far_from_exact_is_judged_only_when_asked(asia) -> None:
    from substrates.models.crn.verdict import Tolerances, judge

    assert asia.loopy  # Asia's moral graph has a cycle: BP vs exact is BP's own error
    far = [b.copy() for b in asia.beliefs["exact"]]
    far[0] = np.eye(len(far[0]))[np.argmin(far[0])]  # all mass on its least likely state
    moved = dataclasses.replace(asia, beliefs={**asia.beliefs, "exact": far})
    assert judge(moved, Tolerances()).outcome == "valid"  # reported, not judged by default
    verdict = judge(moved, Tolerances(approximation=0.1))
    assert verdict.outcome == "cannot tell" and verdict.deciding.name == "bp vs exact"
    unfinished = dataclasses.replace(asia, bp_residual=1e-3)
    assert "BP's fixed-point residual" in judge(unfinished, Tolerances()).line()


def test_a_verdict_takes_not_valid_before_cannot_tell_and_nothing_as_cannot_tell() -> None:
    checks = [
        Check("a vs b", 0.5, 1e-6, "x"),
        Check("conservation", 10.0, 1e-6, fails="cannot tell"),
        Check("c vs d", 1e-3, 1e-6, "y"),
    ]
    verdict = Verdict.judge(checks)
    assert verdict.outcome == "not valid" and verdict.deciding.where == "x"  # the worst
    assert Verdict.judge([]).outcome == "cannot tell"
    assert not Check("unmeasured", None, 1.0).passed
    assert not Check("nan", math.nan, 1.0).passed
    assert Check("zero", 0, 0).passed and not Check("one", 1, 0).passed
    assert EXIT_CODES == {"valid": 0, "not valid": 3, "cannot tell": 4}
