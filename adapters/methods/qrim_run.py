"""`substrates run qrim`: robust RL with the inner minimization on the configured backend."""

from __future__ import annotations

import time
from typing import Any

from ...backends.quantum.base import QuantumBackend
from ...errors import CapabilityError, OptionError
from ...models.qrim import (
    ExhaustiveMin,
    QuantumMinimumFinder,
    make_env,
    nominal_policy,
    robust_q_learning,
    robust_value_iteration,
)
from ...models.qrim.report import circuit_cost, policy_table, robustness_table, summary
from ..runs.plots import qrim_figure
from .lifecycle import Outcome, RunContext
from .qrim import QrimParameters

SECONDS_PER_MEMBER_ON_A_FAKE_DEVICE = 20.0
"""A run on an IBM device snapshot (ibm_fake_*) per member of U (s, two cores): Grover
iterations transpiled to the device and simulated with its noise; frozenlake4 took about
45 s at |U| = 2 or 4 and 6 min at |U| = 16."""
SECONDS_PER_STEP_AT_16 = 0.009
"""One robust Q-learning step of the 16 agents at |U| = 16 on Aer (s; 2,000 steps 18 s),
growing with |U| (at 256: 100 steps in 16–32 s)."""


def run_qrim(p: QrimParameters, run: RunContext) -> Outcome:
    """Solve `p.env` robustly with QRIM on the `hardware` backend and with exhaustive search
    beside it (the parameters are `substrates run qrim`'s); the jobs of an interrupted
    execution of the same run (`run.replay`) are collected in order, not submitted again."""
    backend = run.backend("hardware", QuantumBackend)
    mdp = make_env(p.env, p.uncertainty, p.gamma)
    qrim = QuantumMinimumFinder(backend, p.oracle, repetitions=p.repetitions, seed=p.seed)
    try:
        qrim.check_width(p.uncertainty)
    except CapabilityError as err:
        raise OptionError(
            f"too wide for {run.config('hardware').path}: {err}", option="uncertainty"
        ) from None
    if backend.name == "quantum.ibm_fake":
        run.expect(
            SECONDS_PER_MEMBER_ON_A_FAKE_DEVICE * p.uncertainty,
            "every Grover iteration is transpiled to the device snapshot and simulated with "
            f"its noise; |U| = {p.uncertainty} sets how many (--uncertainty 2 takes ~45 s)",
        )
    elif p.outer == "q_learning":
        run.expect(
            SECONDS_PER_STEP_AT_16 * p.uncertainty / 16 * p.steps,
            f"{p.steps:,} Q-learning steps of 16 agents, each a minimum search over "
            f"{p.uncertainty} members (--steps sets them)",
        )
    run.begin(p.model_dump(exclude={"hardware"}))
    qrim.journal = run.journal(replay=run.replay)

    def solve(minimizer: Any, label: str) -> Any:
        def report(i: int, change: float) -> None:
            run.report(label, i, None, change=change)

        run.report(label, 0, None)  # the bar from the start: a sweep can take minutes

        if p.outer == "value_iteration":
            return robust_value_iteration(mdp, minimizer, progress=report)
        return robust_q_learning(mdp, minimizer, steps=p.steps, seed=p.seed, progress=report)

    began = time.perf_counter()
    with backend.session():  # one IBM Batch/Session for the whole run
        robust = solve(qrim, "qrim")
    wall_qrim = time.perf_counter() - began
    reference, nominal = solve(ExhaustiveMin(), "exhaustive"), nominal_policy(mdp)
    headline = summary(mdp, robust, reference, nominal, qrim)
    headline["circuit"] = circuit_cost(mdp, p.oracle, backend)
    title = f"QRIM on {backend.name}: {p.env}, |U| = {p.uncertainty}"
    tables = {
        "searches.parquet": robust.search_table(),
        "policy.parquet": policy_table(mdp, robust.policy, reference.policy, nominal),
        "robustness.parquet": robustness_table(mdp, robust.policy, nominal),
    }
    figures = {"qrim.png": qrim_figure(mdp, robust, nominal, title)}
    timing = {"qrim_wall_time_s": round(wall_qrim, 6)}
    return Outcome(robust.table(), headline, tables, figures, record=timing)
