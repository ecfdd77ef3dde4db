"""Steady states of mass-action networks without integrating to rest: pseudo-transient
continuation (PTC) from the initial state, finished by Newton's method on the
conservation-reduced system, both with the sparse analytic Jacobian.

Conservation laws. Species whose net changes appear together in some reaction are linked;
each linked group is independent of the others, so the left null space of the
stoichiometry N splits into one small dense problem per group (for a Napp–Adams CRN, one
message or belief: a single law, its sum). In each group, the rows of N dependent on the
others (pivoted QR) are replaced by the group's laws C x = C x₀: the square system

    F(x) = [P f(x); C (x − x₀)] = 0,   F'(x) = [P J(x); C]

is regular at a hyperbolic steady state, where J = N ∂v/∂x itself is singular.

PTC. Linearly implicit Euler steps (I − hJ) Δ = h f with the step h grown after each
accepted step by the fall of the residual, clamped to [2, 10], and quartered after a step
that leaves the positive orthant or lets the residual grow tenfold (the rules crn.torch
uses). Each step lies in range(N): conserved sums stay conserved. Small h follows the
trajectory from x₀, so on graphs with several fixed points the continuation tends to the
one the trajectory reaches (not guaranteed: integrate when it matters). Once the residual is
below `NEWTON_FROM`, Newton steps on F finish the job; a Newton step is accepted when it
reduces the residual or passes Deuflhard's natural monotonicity test (the next step under
half this one: a slow mode's residual rises on the way to the rest), and Newton goes on
from an accepted step whatever the residual; one that leaves the positive orthant, beyond
round-off, or fails both tests hands back to PTC. The continuation gives up (a `Stall`)
when its residual has not fallen in STALL_STEPS steps, or has not fallen tenfold in
CREEP_STEPS at the longest step (creeping: no isolated rest within reach). A point is the
rest when both its residual is below the tolerance and Newton's step from it, the
distance to the rest it estimates, is below `REST_STEP`: a residual alone is fooled by a
slow mode (hailfinder's CRN moved at ~1e-16 per time unit 0.48 away from its rest).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import SubstratesError

NEWTON_FROM = 1e-6
"""Residual (max |dx/dt|) below which Newton's method takes over from the continuation."""
REST_STEP = 1e-9
"""Largest Newton step (concentration) from a point accepted as the rest: below the
residual tolerance a mode with rates ~1e-15 (a message catalysed by a product of fifteen
messages of 0.09, as hailfinder's Scenario) still moves, so the distance to the rest that
Newton's step estimates is checked too."""
STALL_STEPS = 300
"""The continuation gives up when its smallest residual has not fallen for this many steps
(pigs' CRN sat at ~5e-12 for 1,700 of 2,000 steps, a minute)."""
LONGEST_STEP = 1e12
"""Largest pseudo-time step h (time units) of the continuation."""
CREEP_STEPS = 100
"""Once the continuation has reached its longest step, it also gives up when its smallest
residual has not fallen tenfold in this many steps (rejected steps, which shorten h for a
while, included). A step of 1e12 is nearly Newton's on the full
(singular) system, which converges in a few steps to an isolated rest; munin's CRN
(763,597 reactions) crept there from 1.2e-6 to 6.0e-7 in 100 steps of 0.44 s each —
belief species of states no message supports, drained at rates ~1e-51: a rest no
simulation reaches — and would have crept through all 2,000 steps (15 minutes)."""
MAX_GROUP = 2000
"""Largest linked species group whose conservation laws are found densely."""


@dataclass(frozen=True)
class Conservation:
    """laws: C (laws × species, scipy CSR); replaced: the row of f each law replaces."""

    laws: Any
    replaced: np.ndarray


class TooLargeGroup(SubstratesError, ValueError):
    """A linked species group too large for the dense conservation analysis."""


def conservation(stoichiometry: Any) -> Conservation:
    """The conservation laws of N (species × reactions, scipy sparse) group by group."""
    from scipy.linalg import null_space, qr
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = stoichiometry.tocsr()
    species = n.shape[0]
    pattern = (abs(n) > 0).astype(np.int32)  # in int8, 256 shared reactions counted as 0
    _, labels = connected_components(pattern @ pattern.T, directed=False)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    replaced: list[int] = []
    for group in np.split(order, bounds):
        if len(group) > MAX_GROUP:
            raise TooLargeGroup(f"{len(group)} linked species")
        block = n[group]
        block = block[:, np.unique(block.indices)].toarray()
        block = np.unique(block, axis=1)  # same null space; munin's SVDs took 40 s without
        if block.size == 0 or not block.any():
            basis = np.eye(len(group))
            dependent = np.arange(len(group))
        else:
            basis = null_space(block.T)
            if basis.shape[1] == 0:
                continue
            _, _, pivots = qr(block.T, mode="economic", pivoting=True)
            rank = len(group) - basis.shape[1]
            dependent = np.sort(pivots[rank:])
            basis = _tidy(basis)
        for law in range(basis.shape[1]):
            members = np.flatnonzero(np.abs(basis[:, law]) > 1e-12)
            rows += [len(replaced)] * len(members)
            cols += group[members].tolist()
            values += basis[members, law].tolist()
            replaced.append(int(group[dependent[law]]))
    laws = csr_matrix((values, (rows, cols)), shape=(len(replaced), species))
    return Conservation(laws, np.array(replaced, dtype=np.int64))


def _tidy(basis: np.ndarray) -> np.ndarray:
    """A single law scaled to max entry 1 (a Napp–Adams sum reads as ones)."""
    if basis.shape[1] == 1:
        column = basis[:, 0]
        return (column / column[np.argmax(np.abs(column))])[:, None]
    return basis


@dataclass(frozen=True)
class Rest:
    """x: the steady state; time: the continuation's pseudo-time Σh; residual: max |f|;
    steps: PTC and Newton steps taken; verified: Newton's step from x is below REST_STEP
    (x is the rest, not a point on a slow way to it)."""

    x: np.ndarray
    time: float
    residual: float
    steps: int
    verified: bool = False


@dataclass(frozen=True)
class Stall:
    """Where the continuation gave up: x, the accepted point of smallest residual (max |f|);
    distance: the length (max norm, concentration) of Newton's step from x, the distance
    to the rest it estimates (None where the Jacobian is singular there). distance /
    residual estimates the time a trajectory needs at that speed: a slow mode, when it
    is beyond any horizon a simulator would integrate to. time: the pseudo-time Σh the
    continuation advanced (time units); creeping: it gave up at the longest step, its
    residual falling less than tenfold in CREEP_STEPS steps."""

    x: np.ndarray
    residual: float
    distance: float | None
    time: float = 0.0
    creeping: bool = False

    @property
    def time_left(self) -> float:
        """distance / residual (time units; inf where the distance is unknown)."""
        if self.distance is None or self.residual <= 0:
            return float("inf")
        return self.distance / self.residual


def steady_state(
    model: Any,
    start: np.ndarray,
    tolerance: float,
    max_steps: int = 2000,
    laws: Conservation | None = None,
) -> Rest | Stall | None:
    """Continuation then Newton from `start` (model: MassAction) until max |f| < tolerance;
    a Stall when it gives up after `max_steps`, None when the conservation analysis does
    not fit (the caller integrates instead)."""
    from scipy.sparse import identity
    from scipy.sparse.linalg import splu

    if laws is None:
        try:
            laws = conservation(model.stoichiometry)
        except TooLargeGroup:
            return None
    species = len(start)
    keep = np.ones(species, dtype=bool)
    keep[laws.replaced] = False
    kept = np.flatnonzero(keep)
    totals = laws.laws @ start
    eye = identity(species, format="csc")
    x = np.asarray(start, dtype=float).copy()
    f = model.derivative(x)
    speed = float(np.abs(f).max(initial=0.0))
    h, elapsed = 1e-2, 0.0
    best, best_speed, best_step = x, speed, 0
    newton = False  # the last step was Newton's: the next is Newton's too, whatever the speed
    longest: tuple[int, float] | None = None  # (step, smallest residual) at the creep window
    creeping = False
    for step in range(max_steps):
        if speed < best_speed:
            best, best_speed, best_step = x, speed, step
        elif step - best_step > STALL_STEPS:
            break
        if longest is None:
            if h >= LONGEST_STEP:  # from here on, the final approach
                longest = (step, best_speed)
        elif step - longest[0] >= CREEP_STEPS:
            if best_speed > longest[1] / 10:
                creeping = True
                break
            longest = (step, best_speed)
        if speed < tolerance:
            jump = _newton_step(model.jacobian(x), x, f, kept, laws.laws, totals)
            if jump is None:  # singular: the distance left is unknown
                return Rest(x, elapsed, speed, step, verified=False)
            if np.abs(jump).max(initial=0.0) <= REST_STEP:
                return Rest(x, elapsed, speed, step, verified=True)
            trial = x - jump  # a slow mode still far from rest: |dx/dt| is small, x is not
            if trial.min() < -REST_STEP:
                return Rest(x, elapsed, speed, step, verified=False)
            x = np.maximum(trial, 0.0)
            f = model.derivative(x)
            speed = float(np.abs(f).max(initial=0.0))
            continue
        jacobian = model.jacobian(x)
        if speed < NEWTON_FROM or newton:
            newton = False
            jump = _newton_step(jacobian, x, f, kept, laws.laws, totals)
            trial = None if jump is None else x - jump  # None: singular, not hyperbolic
            if jump is not None and trial is not None and trial.min() >= -tolerance:
                trial = np.maximum(trial, 0.0)
                f_trial = model.derivative(trial)
                new_speed = float(np.abs(f_trial).max(initial=0.0))
                if new_speed < speed or _contracts(model, trial, f_trial, jump, kept, laws, totals):
                    x, f, speed, newton = trial, f_trial, new_speed, True
                    continue
        try:
            change = splu((eye - h * jacobian).tocsc()).solve(h * f)
        except RuntimeError:
            h /= 4
            continue
        trial = x + change
        f_trial = model.derivative(trial)
        new_speed = float(np.abs(f_trial).max(initial=0.0))
        if trial.min() >= -1e-10 and new_speed < 10 * speed + tolerance:
            x = np.maximum(trial, 0.0)
            f = model.derivative(x)
            elapsed += h
            grow = speed / max(float(np.abs(f).max(initial=0.0)), 1e-300)
            speed = float(np.abs(f).max(initial=0.0))
            h = min(h * min(max(grow, 2.0), 10.0), LONGEST_STEP)
        else:
            h = max(h / 4, 1e-8)
    jump = _newton_step(model.jacobian(best), best, model.derivative(best), kept, laws.laws, totals)
    distance = None if jump is None else float(np.abs(jump).max())
    return Stall(best, best_speed, distance, elapsed, creeping)


def _contracts(
    model: Any,
    trial: np.ndarray,
    f_trial: np.ndarray,
    jump: np.ndarray,
    kept: np.ndarray,
    laws: Conservation,
    totals: np.ndarray,
) -> bool:
    """Deuflhard's natural monotonicity test: Newton's step from `trial` is under half of
    the `jump` that led there. It accepts a step whose residual rose — crossing a slow mode,
    where |dx/dt| is ~1e-12 on the way and larger near the rest: pigs' CRN sat 0.21 from
    its rest, every residual-decreasing step refused — and refuses a diverging one."""
    following = _newton_step(model.jacobian(trial), trial, f_trial, kept, laws.laws, totals)
    if following is None:
        return False
    return float(np.abs(following).max(initial=0.0)) < 0.5 * float(np.abs(jump).max(initial=0.0))


def _newton_step(
    jacobian: Any, x: np.ndarray, f: np.ndarray, kept: np.ndarray, laws: Any, totals: np.ndarray
) -> np.ndarray | None:
    """Newton's step on the conservation-reduced system at x, whose Jacobian is `jacobian`
    (None where it is singular or not finite)."""
    from scipy.sparse import vstack
    from scipy.sparse.linalg import splu

    system = vstack([jacobian.tocsr()[kept], laws]).tocsc()
    right = np.concatenate([f[kept], laws @ x - totals])
    try:
        step = splu(system).solve(right)
    except RuntimeError:
        return None
    return step if np.isfinite(step).all() else None
