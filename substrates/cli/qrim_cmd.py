"""`substrates run qrim`: robust RL whose worst case over U is found by quantum minimum finding."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .options import add_run_options

ARROWS = "←↓→↑"


def add_qrim_parser(methods: argparse._SubParsersAction) -> None:
    parser = methods.add_parser(
        "qrim",
        help="robust RL with quantum inner minimization (QRIM)",
        description=(
            "Solve a robust MDP whose dynamics are one of |U| models. Each robust Bellman "
            "backup needs min over U; QRIM finds it with Dürr–Høyer quantum minimum finding "
            "on the configured backend (O(√|U|) oracle queries), exhaustive search (|U| "
            "queries) is run beside it as the reference. Without options: FrozenLake 4x4, "
            "|U| = 16, robust value iteration on the Aer simulator (well under a minute)."
        ),
    )
    add_run_options(parser, seed_help="seed of the search and the agents (default 0)")
    parser.add_argument(
        "--env", default="frozenlake4",
        help="frozenlake4, frozenlake8 or inventory (default: frozenlake4)",
    )  # fmt: skip
    parser.add_argument(
        "--uncertainty", type=int, default=16, metavar="N",
        help="|U|, the number of transition models: a power of two from 2 to 1024 (default 16)",
    )  # fmt: skip
    parser.add_argument(
        "--outer", choices=["value_iteration", "q_learning"], default="value_iteration",
        help="outer loop: robust value iteration, or sampling-based robust Q-learning",
    )  # fmt: skip
    parser.add_argument(
        "--oracle", choices=["diagonal", "gates"], default="diagonal",
        help="oracle construction: 'diagonal' (one diagonal unitary; Qiskit compiles it "
        "exactly to CX and RZ gates for devices) or 'gates' (a lookup writes each member's "
        "value rank to a register, a comparator marks those below the threshold: the "
        "general construction, far deeper; default: diagonal)",
    )  # fmt: skip
    parser.add_argument("--gamma", type=float, default=0.95, help="discount in (0, 1)")
    parser.add_argument(
        "--repetitions", type=int, default=1,
        help="independent minimum-finding runs per minimization, best kept (default 1)",
    )  # fmt: skip
    parser.add_argument("--steps", type=int, default=2000, help="Q-learning steps (16 agents)")
    parser.set_defaults(handler=handle_qrim, seed=0)


def run_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """run_qrim's arguments from the command line (all but out and progress)."""
    return {
        "hardware": args.hardware, "env": args.env, "uncertainty": args.uncertainty,
        "outer": args.outer, "oracle": args.oracle, "gamma": args.gamma,
        "repetitions": args.repetitions, "steps": args.steps, "seed": args.seed,
    }  # fmt: skip


def handle_qrim(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from substrates.adapters.runs.qrim_run import run_qrim

    bars: dict[str, tqdm] = {}

    def progress(label: str, iteration: int, change: float) -> None:
        if label not in bars:
            unit = "sweep" if args.outer == "value_iteration" else "step"
            bars[label] = tqdm(
                desc=f"{label:>10}", unit=unit, file=sys.stderr, leave=False, disable=None
            )
        bars[label].update(1)
        bars[label].set_postfix(change=f"{change:.2e}")

    folder, summary = run_qrim(**run_arguments(args), out=args.out, progress=progress)
    for bar in bars.values():
        bar.close()
    print_report(folder, summary)
    return 0


def print_report(folder: object, summary: dict) -> None:
    """The robust policy, its worst-case return, and query counts against exhaustive search."""
    policy = folder.read_table("policy.parquet").to_pylist()  # type: ignore[attr-defined]
    labels = [row["label"] for row in policy]
    cells = [
        row["label"] if row["terminal"] else ARROWS[row["qrim_action"]]
        if len(ARROWS) > row["qrim_action"] else str(row["qrim_action"])
        for row in policy
    ]  # fmt: skip
    size = int(len(cells) ** 0.5)
    if size * size == len(cells) and set("SFHG") >= set("".join(labels)):
        print("robust policy (QRIM):")
        for row in range(size):
            print("  " + " ".join(cells[row * size : (row + 1) * size]))
    else:
        print("robust policy (QRIM), action per state:", [r["qrim_action"] for r in policy])
    s = summary
    print(
        f"worst-case return: QRIM policy {s['worst_case_return_robust']:.4f} "
        f"(worst member: {s['worst_case_member_robust']}), "
        f"nominal policy {s['worst_case_return_nominal']:.4f}"
    )
    print(
        f"oracle queries per inner minimization: mean {s['oracle_queries_mean']:.1f}, "
        f"95th percentile {s['oracle_queries_p95']:.0f}; exhaustive search: "
        f"{s['exhaustive_queries']} ({s['minimizations']} minimizations)"
    )
    print(
        f"exact minimum found in {100 * s['exact_minimum_rate']:.2f}% of minimizations; "
        f"policy equals exhaustive in {100 * s['policy_agreement_with_exhaustive']:.1f}% of states"
    )
    c = s["circuit"]
    print(
        f"circuit ({c['construction']} oracle): {c['qubits']} qubit{'s' * (c['qubits'] > 1)}, "
        "one Grover iteration "
        f"compiled: depth {c['compiled_depth']}, {c['compiled_two_qubit_gates']} two-qubit gates"
    )
    print(f"run folder: {folder.path}")  # type: ignore[attr-defined]
