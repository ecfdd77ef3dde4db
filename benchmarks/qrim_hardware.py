"""QRIM on a noisy device snapshot: circuit cost and success rate against |U|.

For each |U|, one Grover iteration with each oracle construction is compiled to the
device (depth, two-qubit gates), and QRIM minimizes random tables through the IBM code
path on the snapshot (diagonal oracle). Success = the exact minimum was returned;
evaluating each measured candidate classically keeps wrong answers from being accepted,
so noise cannot make the search return a wrong minimum — it makes it slower, down to
classical random sampling. Whether the quantum part still helps shows in the
amplification columns: the probability of measuring the one marked member after the
optimal number of Grover iterations, ideal vs on the snapshot, against 1/|U| (guessing).

    python benchmarks/qrim_hardware.py --device fake_brisbane --sizes 2 4 8 16 --tables 12
"""

from __future__ import annotations

import argparse

import numpy as np
from publish import published
from tqdm import tqdm

from substrates.backends.registry import create_backend
from substrates.models.qrim import QuantumMinimumFinder
from substrates.models.qrim.oracle import grover_circuit


def two_qubit_gates(circuit) -> int:
    return sum(1 for i in circuit.data if i.operation.num_qubits == 2)


def amplification(backend, size: int, construction: str, shots: int, seed: int) -> float:
    """P(marked) for one marked member after ⌊π/4·√|U|⌋ iterations, measured on the backend."""
    values = np.arange(size, dtype=float)  # member 0 alone lies below member 1's value
    iterations = max(1, int(np.pi / 4 * np.sqrt(size)))
    (result,) = backend.sample(
        [grover_circuit(values, 1, iterations, construction)], shots=shots, seed=seed
    )
    return result.counts.get("0" * int(np.log2(size)), 0) / shots


def ideal_amplification(size: int) -> float:
    theta = np.arcsin(np.sqrt(1 / size))
    return float(np.sin((2 * max(1, int(np.pi / 4 * np.sqrt(size))) + 1) * theta) ** 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="fake_brisbane")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--shots", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    backend = create_backend("quantum.ibm_fake", {"device": args.device})
    rng = np.random.default_rng(args.seed)
    rows = []
    for size in tqdm(args.sizes, desc="|U|"):
        values = rng.normal(size=size)
        cost = {}
        for construction in ("diagonal", "gates"):
            (mapped,) = backend.compiled([grover_circuit(values, 0, 1, construction)])
            cost[construction] = (mapped.depth(), two_qubit_gates(mapped))
        tables = [rng.normal(size=size) for _ in range(args.tables)]
        finder = QuantumMinimumFinder(backend, "diagonal", seed=args.seed, shots=args.shots)
        results = finder.argmin_many(tables)
        success = np.mean(
            [r.index == int(np.argmin(t)) for r, t in zip(results, tables, strict=True)]
        )
        queries = np.mean([r.oracle_queries for r in results])
        amplified = {c: amplification(backend, size, c, 2000, args.seed) for c in cost}
        rows.append((size, cost, success, queries, amplified))
    print(f"\n{args.device}, {args.tables} minimizations per size, {args.shots} shots per circuit")
    print(
        "| \\|U\\| | diagonal oracle: depth / 2q gates | gates oracle: depth / 2q gates "
        "| exact minimum found | oracle queries (mean) | P(marked): ideal | diagonal "
        "| gates | guessing |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, cost, success, queries, amplified in rows:
        print(
            f"| {size} | {cost['diagonal'][0]} / {cost['diagonal'][1]} "
            f"| {cost['gates'][0]} / {cost['gates'][1]} | {100 * success:.0f}% | {queries:.1f} "
            f"| {ideal_amplification(size):.2f} | {amplified['diagonal']:.2f} "
            f"| {amplified['gates']:.2f} | {1 / size:.2f} |"
        )


if __name__ == "__main__":
    with published("qrim_hardware"):
        main()
