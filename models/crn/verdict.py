"""The verdict of a reduction's validation (`validate.py`): every comparison it made, each
against its tolerance.

- **not valid** when the CRNs disagree: the reduced with the original, the elementary
  rewrite with the reduced, either CRN with BP (the Napp–Adams CRN computes BP: a rest
  point away from BP's fixed point is a wrong answer), and, on a tree, BP or the original
  CRN with the exact marginals (BP is exact there) — each beyond `beliefs`; or when a
  CRN rests at messages where BP's equations do not hold (max |F(m) − m| beyond
  `beliefs`: a boundary equilibrium, some message driven to zero);
- **cannot tell** when the answer cannot be trusted: a CRN the simulator brought to no
  rest (its limits reached: nothing to compare), a conserved sum lost beyond
  `conservation` (beliefs are normalised, which would hide it), a rest point with
  max |dx/dt| beyond `rest` (deterministic simulators), a relaxation time τ longer than
  1/`relaxations` of the time simulated where no Newton solve confirmed the rest (it may
  be a slow transient; crn.ode's continuation and crn.roadrunner's NLEQ2 confirm it), BP not at
  its fixed point (residual beyond `beliefs`: the CRNs are compared with an unfinished
  BP), a CRN that rests at another fixed point of BP's equations than BP's own (loopy
  graphs can have several), several fixed points reached from random starts, perturbed
  or random-start simulations that failed.

Two numbers describe the method rather than the reduction and are reported, not judged,
unless their tolerance is set: BP's distance from the exact marginals on a graph with
cycles (`approximation`; loopy BP's own error, which the CRN inherits: beyond it, cannot
tell) and the belief shifts under rate noise (`shift`; beyond it, not valid).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...verdicts import Check, Failure, Verdict
from .validate import Validation, belief_gaps

AGREEMENT = (
    ("crn_reduced", "crn_original"),
    ("crn_elementary", "crn_reduced"),
    ("crn_original", "bp"),
    ("crn_reduced", "bp"),
)
ON_TREES = (("bp", "exact"), ("crn_original", "exact"))


@dataclass(frozen=True)
class Tolerances:
    """beliefs: largest |belief difference| between CRNs, or a CRN and BP, and BP's
    largest residual; approximation: largest |BP − exact| on a graph with cycles (None:
    reported, not judged); conservation: largest loss of a conserved
    sum (concentration); rest: largest max |dx/dt| at a rest point (concentration per
    time unit); relaxations: how many relaxation times τ the simulated time must cover;
    shift: largest belief shift under rate noise (None: reported, not judged)."""

    beliefs: float = 1e-6
    approximation: float | None = None
    conservation: float = 1e-6
    rest: float = 1e-6
    relaxations: float = 1.0
    shift: float | None = None


def judge(validation: Validation, tolerances: Tolerances, stochastic: bool = False) -> Verdict:
    """The verdict on `validation`; `stochastic`: the simulator samples (its rest points
    are time averages, so their |dx/dt| is not judged)."""
    v, t = validation, tolerances
    pairs = AGREEMENT + (() if v.loopy else ON_TREES)
    checks = [_pair(v, a, b, t.beliefs, _kind(v, a, b, t)) for a, b in pairs]
    for label, residual in v.bp_residual_at_rest.items():
        name = f"BP's equations at {label}'s rest"  # max |F(m) − m| at its messages
        checks.append(Check(name, residual, t.beliefs, fails="not valid"))
    if v.loopy and t.approximation is not None:
        checks.append(_pair(v, "bp", "exact", t.approximation, "cannot tell"))
    checks.append(Check("BP's fixed-point residual", v.bp_residual, t.beliefs, fails="cannot tell"))
    for label, error in v.conservation_error.items():
        checks.append(Check(f"conservation of {label}", error, t.conservation, fails="cannot tell"))
    for label, why in v.unrested.items():
        checks.append(Check(f"the rest of {label}", None, 0.0, why, "cannot tell"))
    if not stochastic:
        for label, residual in v.residual.items():
            if label in v.unrested:
                continue
            checks.append(
                Check(f"|dx/dt| at {label}'s rest", residual, t.rest, fails="cannot tell")
            )
    for label, found in v.robustness.items():
        simulated = None if v.verified.get(label) else v.steady_time.get(label)
        checks += _robustness(label, found, simulated, t)
    return Verdict.judge(c for c in checks if c is not None)


def _kind(v: Validation, a: str, b: str, t: Tolerances) -> Failure:
    """A CRN that rests away from BP's answer but at messages that satisfy BP's equations
    found another BP fixed point (loopy graphs can have several): which one is right the
    validation cannot tell. Any other disagreement is not valid."""
    if b == "bp" and v.bp_residual_at_rest.get(a, np.inf) <= t.beliefs:
        return "cannot tell"
    return "not valid"


def _pair(v: Validation, a: str, b: str, tolerance: float, fails: Failure) -> Check | None:
    """|a − b| at its worst survivor, or None when either was not computed."""
    gaps = belief_gaps(v.beliefs, a, b)
    if gaps is None:
        return None
    worst = int(np.argmax(gaps))
    return Check(f"{a} vs {b}", gaps[worst], tolerance, v.survivors[worst], fails)


def _robustness(
    label: str, found: dict[str, Any], simulated: float | None, t: Tolerances
) -> list[Check]:
    """The checks of one CRN's robustness analyses (validate.Analyses)."""
    checks = []
    tau = found.get("relaxation_time")
    if tau is not None and simulated is not None and np.isfinite(simulated):
        limit = simulated / t.relaxations  # the rest must be many τ after the start
        checks.append(Check(f"relaxation time τ of {label}", tau, limit, fails="cannot tell"))
    basins = found.get("basins")
    if basins:
        checks.append(
            Check(
                f"extra fixed points of {label}", basins["fixed_points"] - 1, 0, fails="cannot tell"
            )
        )
        checks.append(
            Check(f"failed random starts of {label}", basins["failed"], 0, fails="cannot tell")
        )
    for row in found.get("sensitivity", []):
        where = f"{row['variable']} at ±{row['level']:.0%}"
        checks.append(
            Check(f"failed rate-noise runs of {label}", row["failed"], 0, where, "cannot tell")
        )
        if t.shift is not None:
            shift = row["max_shift"]
            checks.append(Check(f"rate-noise shift of {label}", shift, t.shift, where))
    return checks
