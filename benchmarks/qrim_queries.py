"""QRIM's oracle queries per inner minimization against |U| for exhaustive search.

For each |U| = 4 … 1024, minimize random tables with QRIM (Dürr–Høyer + BBHT, diagonal
oracle, exact Aer state vector, one measurement drawn per circuit) and with exhaustive
search, in this one run. Prints mean and 95th-percentile oracle queries, the ratio to
|U|, the success rate, and the exponent b of a least-squares fit queries ≈ a·|U|^b
(theory: 0.5), and the fit mean ≈ a·√|U| + b with oracle-plus-classical totals beside the
oracle-only counts. Writes a log-log plot.

    python benchmarks/qrim_queries.py --tables 200 --plot qrim_queries.png
"""

from __future__ import annotations

import argparse

import numpy as np
from publish import published
from tqdm import tqdm

from substrates.backends.registry import create_backend
from substrates.models.qrim import ExhaustiveMin, QuantumMinimumFinder

SIZES = [4, 8, 16, 32, 64, 128, 256, 512, 1024]


def measure(sizes: list[int], tables: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    backend = create_backend("quantum.aer")
    rows = []
    for size in tqdm(sizes, desc="|U|", unit="size"):
        batch = [rng.normal(size=size) for _ in range(tables)]
        results = QuantumMinimumFinder(backend, seed=seed).argmin_many(batch)
        reference = ExhaustiveMin().argmin_many(batch)
        queries = np.array([r.oracle_queries for r in results])
        rows.append(
            {
                "size": size,
                "mean": queries.mean(),
                "p95": np.percentile(queries, 95),
                "classical": np.mean([r.classical_queries for r in results]),
                "exhaustive": np.mean([r.classical_queries for r in reference]),
                "success": np.mean(
                    [r.value == e.value for r, e in zip(results, reference, strict=True)]
                ),
            }
        )
    return rows


def fitted_exponent(rows: list[dict], smallest: int = 4) -> float:
    kept = [r for r in rows if r["size"] >= smallest]
    x = np.log([r["size"] for r in kept])
    y = np.log([r["mean"] for r in kept])
    return float(np.polyfit(x, y, 1)[0])


def sqrt_fit(rows: list[dict], smallest: int = 64) -> tuple[float, float]:
    """Least-squares a, b of mean oracle queries ≈ a·√|U| + b over |U| ≥ smallest."""
    kept = [r for r in rows if r["size"] >= smallest]
    a, b = np.polyfit(np.sqrt([r["size"] for r in kept]), [r["mean"] for r in kept], 1)
    return float(a), float(b)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = np.array([r["size"] for r in rows])
    figure, axis = plt.subplots(figsize=(6, 4.2), layout="constrained")
    axis.loglog(sizes, [r["mean"] for r in rows], "o-", label="QRIM oracle queries (mean)")
    axis.loglog(sizes, [r["p95"] for r in rows], "s--", label="QRIM (95th percentile)")
    axis.loglog(sizes, [r["classical"] for r in rows], "^:", label="QRIM classical evaluations")
    axis.loglog(sizes, sizes, "k-", label="exhaustive search: |U|")
    axis.set_xlabel("|U|, size of the uncertainty set")
    axis.set_ylabel("queries per inner minimization")
    axis.set_title(f"fitted exponent {fitted_exponent(rows):.2f} (theory 0.5)")
    axis.legend(fontsize=8)
    figure.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--tables", type=int, default=200, help="minimizations per size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default="qrim_queries.png", help="PNG path")
    args = parser.parse_args()
    rows = measure(args.sizes, args.tables, args.seed)
    print(f"\n{args.tables} random tables per size; queries per inner minimization")
    print(
        "| \\|U\\| | QRIM oracle mean | mean / √\\|U\\| | QRIM oracle p95 | QRIM classical "
        "| oracle + classical | exhaustive | mean / \\|U\\| | exact minimum |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['size']} | {r['mean']:.1f} | {r['mean'] / np.sqrt(r['size']):.2f} "
            f"| {r['p95']:.0f} | {r['classical']:.1f} | {r['mean'] + r['classical']:.1f} "
            f"| {r['exhaustive']:.0f} | {r['mean'] / r['size']:.2f} | {100 * r['success']:.1f}% |"
        )
    a, b = sqrt_fit(rows)
    print(f"\nfit over |U| ≥ 64: mean oracle queries ≈ {a:.2f}·√|U| {b:+.1f}")
    print(
        f"\nfitted exponent, all sizes: {fitted_exponent(rows):.3f}; "
        f"|U| ≥ 64: {fitted_exponent(rows, 64):.3f} (theory: 0.5)"
    )
    plot(rows, args.plot)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    with published("qrim_queries"):
        main()
