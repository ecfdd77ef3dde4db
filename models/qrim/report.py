"""What a QRIM run reports beside its searches: the summary against exhaustive search and
the nominal policy, the circuit's cost on the device, and the policy and robustness tables."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pyarrow as pa

from ...backends.quantum.base import QuantumBackend
from .inner import QuantumMinimumFinder
from .mdp import RobustMDP
from .oracle import grover_circuit
from .solution import RobustSolution


def summary(
    mdp: RobustMDP,
    robust: RobustSolution,
    reference: RobustSolution,
    nominal: np.ndarray,
    qrim: QuantumMinimumFinder,
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


def circuit_cost(
    mdp: RobustMDP, construction: Literal["diagonal", "gates"], backend: QuantumBackend
) -> dict[str, Any]:
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


def policy_table(
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


def robustness_table(mdp: RobustMDP, robust: np.ndarray, nominal: np.ndarray) -> pa.Table:
    return pa.table(
        {
            "member": np.arange(mdp.num_members),
            "model": list(mdp.members),
            "return_qrim_policy": mdp.policy_values(robust)[:, mdp.start],
            "return_nominal_policy": mdp.policy_values(nominal)[:, mdp.start],
        }
    )
