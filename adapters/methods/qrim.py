"""`qrim`: robust RL whose worst case over the uncertainty set is found by quantum minimum
finding on a quantum backend."""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from ...backends.quantum.base import QuantumBackend
from ..runs.run import Run
from .method import SEED_MAX, Method, MethodParameters, implementation, option
from .summary import Entry

ARROWS = "←↓→↑"


class QrimParameters(MethodParameters):
    """Parameters of `substrates run qrim`."""

    hardware: str = option(
        "aer_statevector",
        "hardware config file or shipped config name",
        metavar="CONFIG",
        input="config",
    )
    env: Literal["frozenlake4", "frozenlake8", "inventory"] = option(
        "frozenlake4", "the robust MDP: FrozenLake 4x4 or 8x8, or an inventory problem"
    )
    uncertainty: int = option(
        16, "|U|, the number of transition models: a power of two from 2 to 1024", metavar="N"
    )
    outer: Literal["value_iteration", "q_learning"] = option(
        "value_iteration", "outer loop: robust value iteration, or sampling-based robust Q-learning"
    )
    oracle: Literal["diagonal", "gates"] = option(
        "diagonal",
        "oracle construction: 'diagonal' (one diagonal unitary; Qiskit compiles it exactly to CX "
        "and RZ gates for devices) or 'gates' (a lookup writes each member's value rank to a "
        "register, a comparator marks those below the threshold: the general construction, "
        "far deeper)",
    )
    gamma: float = option(0.95, "discount in (0, 1)", gt=0, lt=1)
    repetitions: int = option(
        1, "independent minimum-finding runs per minimization, best kept", ge=1
    )
    steps: int = option(2000, "Q-learning steps (16 agents)", ge=1)
    seed: int = option(0, "seed of the search and the agents", ge=0, le=SEED_MAX)

    @field_validator("uncertainty")
    @classmethod
    def _power_of_two(cls, value: int) -> int:
        if value < 2 or value & (value - 1) or value > 1024:
            raise ValueError(
                f"{value} is not a power of two from 2 to 1024; QRIM indexes U with qubits, "
                "so |U| = 2^n (sizes are refused, not padded)"
            )
        return value


def report(run: Run) -> str:
    """The robust policy, its worst-case return, and query counts against exhaustive search."""
    policy = run.table("policy.parquet").to_pylist()
    labels = [row["label"] for row in policy]
    cells = [
        row["label"]
        if row["terminal"]
        else ARROWS[row["qrim_action"]]
        if len(ARROWS) > row["qrim_action"]
        else str(row["qrim_action"])
        for row in policy
    ]
    size = int(len(cells) ** 0.5)
    lines = []
    if size * size == len(cells) and set("SFHG") >= set("".join(labels)):
        lines.append("robust policy (QRIM):")
        lines += ["  " + " ".join(cells[row * size : (row + 1) * size]) for row in range(size)]
    else:
        actions = [r["qrim_action"] for r in policy]
        lines.append(f"robust policy (QRIM), action per state: {actions}")
    s = run.summary
    c = s["circuit"]
    lines += [
        f"robust (s,a-rectangular) return, what robust value iteration maximizes and the "
        f"robust policy is guaranteed to win: QRIM policy {s['rectangular_return_robust']:.4f}, "
        f"nominal policy {s['rectangular_return_nominal']:.4f}",
        f"worst-case return over single members (no such guarantee): QRIM policy "
        f"{s['worst_case_return_robust']:.4f} (worst member: {s['worst_case_member_robust']}), "
        f"nominal policy {s['worst_case_return_nominal']:.4f}",
        f"oracle queries per inner minimization: mean {s['oracle_queries_mean']:.1f}, "
        f"95th percentile {s['oracle_queries_p95']:.0f}, plus {s['classical_queries_mean']:.1f} "
        f"classical evaluations; exhaustive search: {s['exhaustive_queries']} evaluations "
        f"({s['minimizations']} minimizations; every search's trace in searches.parquet)",
        f"exact minimum found in {100 * s['exact_minimum_rate']:.2f}% of minimizations; "
        f"policy equals exhaustive in {100 * s['policy_agreement_with_exhaustive']:.1f}% of states",
        f"circuit ({c['construction']} oracle): {c['qubits']} qubit{'s' * (c['qubits'] > 1)}; "
        + (
            f"one Grover iteration mapped to the device: depth {c['compiled_depth']}, "
            f"{c['compiled_two_qubit_gates']} two-qubit gates"
            if c.get("device_mapped")
            else "simulated as built (no device to map it to)"
        ),
        f"run folder: {run.path}",
    ]
    return "\n".join(lines)


SUMMARY = (
    Entry("minimizations", "inner minimizations", format="d"),
    Entry("exact_minimum_rate", "minimizations that found the exact minimum", "%"),
    Entry("policy_agreement_with_exhaustive", "states whose action equals exhaustive's", "%"),
    Entry("oracle_queries_mean", "oracle queries per minimization, mean", format=".1f"),
    Entry("oracle_queries_p95", "oracle queries per minimization, 95th percentile", format=".0f"),
    Entry("classical_queries_mean", "classical evaluations per minimization", format=".1f"),
    Entry("exhaustive_queries", "evaluations of exhaustive search", format="d"),
    Entry("oracle_queries_total", "oracle queries in all", format="d"),
    Entry("backend_{what}", "backend {what}", format="d"),
    Entry(
        "worst_case_return_{policy}",
        "worst-case return over members, {policy} policy",
        format=".4f",
    ),
    Entry("worst_case_member_robust", "worst member for the robust policy"),
    Entry(
        "rectangular_return_{policy}",
        "robust (s,a-rectangular) return, {policy} policy",
        format=".4f",
    ),
    Entry("outer_iterations", "outer iterations", format="d"),
    Entry("circuit.construction", "oracle construction"),
    Entry("circuit.qubits", "qubits of one Grover iteration", format="d"),
    Entry("circuit.device_mapped", "mapped onto a device"),
    Entry("circuit.compiled_depth", "mapped depth of one Grover iteration", format="d"),
    Entry(
        "circuit.compiled_two_qubit_gates", "two-qubit gates of one mapped iteration", format="d"
    ),
)


METHOD = Method(
    name="qrim",
    help="robust RL with quantum inner minimization (QRIM)",
    description=(
        "Solve a robust MDP whose dynamics are one of |U| models. Each robust Bellman "
        "backup needs min over U; QRIM finds it with Dürr–Høyer quantum minimum finding "
        "on the configured backend (O(√|U|) oracle queries), exhaustive search (|U| "
        "queries) is run beside it as the reference. Without options: FrozenLake 4x4, "
        "|U| = 16, robust value iteration on the Aer simulator (well under a minute)."
    ),
    summary=SUMMARY,
    parameters=QrimParameters,
    run=implementation(".qrim_run", "run_qrim"),
    backends={"hardware": QuantumBackend},
    report=report,
    replays=True,
)
