"""`substrates run qrim`: robust RL with the inner minimization on the configured backend."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from ...backends.errors import CapabilityError, SubstratesError
from ...models.qrim import (
    ExhaustiveMin,
    QuantumMinimumFinder,
    RobustMDP,
    make_env,
    nominal_policy,
    robust_q_learning,
    robust_value_iteration,
)
from ...models.qrim.oracle import grover_circuit
from .folder import RunFolder
from .journal import JobLog
from .plots import close_figure, qrim_figure
from .progress import Progress
from .provenance import now, provenance, recording_failure
from .sample_run import quantum_backend


def run_qrim(
    *,
    hardware: str | Path,
    env: str,
    uncertainty: int,
    outer: Literal["value_iteration", "q_learning"],
    oracle: Literal["diagonal", "gates"],
    gamma: float,
    repetitions: int,
    steps: int,
    seed: int,
    out: str | Path,
    progress: Progress | None = None,
    replay: Sequence[Mapping[str, Any]] = (),
) -> RunFolder:
    """Solve `env` robustly with QRIM and with exhaustive search; write the run folder (the
    parameters are `substrates run qrim`'s, see adapters.methods.qrim). `replay`: the jobs
    an interrupted execution of the same run submitted (its jobs.json), collected in order
    instead of submitted again."""
    try:
        mdp = make_env(env, uncertainty, gamma)
    except ValueError as err:
        raise SubstratesError(str(err)) from None
    resolved, backend = quantum_backend(hardware)
    qrim = QuantumMinimumFinder(backend, oracle, repetitions=repetitions, seed=seed)
    try:
        qrim.check_width(uncertainty)
    except CapabilityError as err:
        raise SubstratesError(f"uncertainty set too wide for {resolved.path}: {err}") from None

    folder = RunFolder.create(out, "qrim")
    qrim.journal = JobLog(folder, replay=replay)
    parameters = {
        "env": env,
        "uncertainty": uncertainty,
        "outer": outer,
        "oracle": oracle,
        "gamma": gamma,
        "repetitions": repetitions,
        "steps": steps,
        "seed": seed,
    }
    record = provenance("qrim", resolved, backend, parameters)
    folder.write_json("provenance.json", record)

    def solve(minimizer: Any, label: str) -> Any:
        report = (lambda i, change: progress(label, i, None, change=change)) if progress else None
        if outer == "value_iteration":
            return robust_value_iteration(mdp, minimizer, progress=report)
        return robust_q_learning(mdp, minimizer, steps=steps, seed=seed, progress=report)

    start = time.perf_counter()
    with recording_failure(folder, record):
        with backend.session():  # one IBM Batch/Session for the whole run
            robust = solve(qrim, "qrim")
        wall_qrim = time.perf_counter() - start
        reference = solve(ExhaustiveMin(), "exhaustive")
    nominal = nominal_policy(mdp)
    summary = _summary(mdp, robust, reference, nominal, qrim)
    summary["circuit"] = _circuit_cost(mdp, oracle, backend)
    folder.write_table("results.parquet", robust.table())
    folder.write_table("searches.parquet", robust.search_table())
    folder.write_table(
        "policy.parquet", _policy_table(mdp, robust.policy, reference.policy, nominal)
    )
    folder.write_table("robustness.parquet", _robustness_table(mdp, robust.policy, nominal))
    figure = qrim_figure(
        mdp, robust, nominal, f"QRIM on {backend.name}: {env}, |U| = {uncertainty}"
    )
    folder.save_figure("qrim.png", figure)
    close_figure(figure)
    record.update(
        status="complete", finished_at=now(), wall_time_s=round(wall_qrim, 6), summary=summary
    )
    folder.write_json("provenance.json", record)
    return folder


def _summary(
    mdp: RobustMDP, robust: Any, reference: Any, nominal: np.ndarray, qrim: QuantumMinimumFinder
) -> dict[str, Any]:
    table = robust.table()
    found = table["value"].to_numpy()
    exact = np.isclose(found, table["true_min"].to_numpy(), rtol=0, atol=1e-12)
    live = ~mdp.terminal
    worst_robust, worst_member = mdp.worst_case_return(robust.policy)
    return {
        "minimizations": table.num_rows,
        "exact_minimum_rate": float(exact.mean()),
        "policy_agreement_with_exhaustive": float(
            np.mean(robust.policy[live] == reference.policy[live])
        ),
        "oracle_queries_mean": float(table["oracle_queries"].to_numpy().mean()),
        "oracle_queries_p95": float(np.percentile(table["oracle_queries"].to_numpy(), 95)),
        "classical_queries_mean": float(table["classical_queries"].to_numpy().mean()),
        "exhaustive_queries": mdp.num_members,
        "oracle_queries_total": int(table["oracle_queries"].to_numpy().sum()),
        "backend_calls": qrim.use.calls,
        "backend_circuits": qrim.use.circuits,
        "backend_shots": qrim.use.shots,
        "worst_case_return_robust": worst_robust,
        "worst_case_member_robust": mdp.members[worst_member],
        "worst_case_return_nominal": mdp.worst_case_return(nominal)[0],
        "worst_case_return_exhaustive": mdp.worst_case_return(reference.policy)[0],
        "rectangular_return_robust": float(mdp.rectangular_values(robust.policy)[mdp.start]),
        "rectangular_return_nominal": float(mdp.rectangular_values(nominal)[mdp.start]),
        "outer_iterations": robust.iterations,
    }


def _circuit_cost(mdp: RobustMDP, construction: str, backend: Any) -> dict[str, Any]:
    """Width of one Grover iteration with a typical threshold, and, where the backend maps
    circuits onto a device (a layout on its qubits, the device's basis gates), the mapped
    depth and two-qubit gate count; a simulator runs the circuit as built."""
    values = np.arange(mdp.num_members, dtype=float)[::-1].copy()
    circuit = grover_circuit(values, mdp.num_members // 2, 1, construction)
    cost: dict[str, Any] = {"construction": construction, "qubits": circuit.num_qubits}
    (mapped,) = backend.compiled([circuit])
    if mapped.layout is None:
        return {**cost, "device_mapped": False}
    two_qubit = sum(
        1 for i in mapped.data if i.operation.num_qubits == 2 and i.operation.name != "barrier"
    )
    return {
        **cost,
        "device_mapped": True,
        "compiled_depth": mapped.depth(),
        "compiled_two_qubit_gates": two_qubit,
    }


def _policy_table(
    mdp: RobustMDP, robust: np.ndarray, reference: np.ndarray, nominal: np.ndarray
) -> pa.Table:
    live = ~mdp.terminal
    return pa.table(
        {
            "state": np.arange(mdp.num_states),
            "label": list(mdp.state_labels),
            "terminal": mdp.terminal,
            "qrim_action": np.where(live, robust, -1),
            "exhaustive_action": np.where(live, reference, -1),
            "nominal_action": np.where(live, nominal, -1),
        }
    )


def _robustness_table(mdp: RobustMDP, robust: np.ndarray, nominal: np.ndarray) -> pa.Table:
    return pa.table(
        {
            "member": np.arange(mdp.num_members),
            "model": list(mdp.members),
            "return_qrim_policy": mdp.policy_values(robust)[:, mdp.start],
            "return_nominal_policy": mdp.policy_values(nominal)[:, mdp.start],
        }
    )
