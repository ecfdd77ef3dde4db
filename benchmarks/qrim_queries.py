"""QRIM's oracle queries per inner minimization against |U|, per seed, beside exhaustive search.

For each declared seed and |U| = 4 … 1024, minimize random normal tables with QRIM (the
diagonal oracle on Aer's exact state vector, one measurement drawn per circuit) and with
exhaustive search, in this one run. Prints, per seed, the mean oracle queries / √|U| and
the share of minimizations that returned the exact minimum, with the worst seed; then the
seeds pooled: mean and 95th-percentile queries, classical evaluations, the ratio to |U|,
the fit mean ≈ a·√|U| + b and the exponent b of queries ≈ a·|U|^b (theory 0.5). Ends with
the verdict on issue #47's goal — every seed ≥ 99.5% exact and mean ≤ 4.2·√|U| at |U| =
64 … 1024 — and exits 1 when it is missed. Writes a log-log plot.

SEEDS were declared before the first run of this script and are used nowhere else: the
search has one setting, its tolerance, fixed at 0.001 beforehand (rules are compared on
seed 1000 in `qrim_search_rules.py`), and nothing was tuned on these tables.

    python benchmarks/qrim_queries.py --tables 1000 --plot qrim_queries.png
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from publish import published
from timing import arguments
from tqdm import tqdm

from substrates.backends.registry import create_backend
from substrates.models.qrim import ExhaustiveMin, QuantumMinimumFinder

SIZES = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
SEEDS = [201, 202, 203, 204, 205]
"""Held out: declared on 2026-12-06 before any run, never used to choose anything."""
GOAL_SIZES = (64, 1024)
GOAL_EXACT = 0.995
GOAL_CONSTANT = 4.2


def measure(size: int, tables: int, seed: int) -> dict:
    """QRIM and exhaustive search on `tables` normal tables of `size` drawn from `seed`."""
    rng = np.random.default_rng([seed, size])
    batch = [rng.normal(size=size) for _ in range(tables)]
    results = QuantumMinimumFinder(create_backend("quantum.aer"), seed=seed).argmin_many(batch)
    reference = ExhaustiveMin().argmin_many(batch)
    return {
        "queries": np.array([r.oracle_queries for r in results]),
        "classical": np.array([r.classical_queries for r in results]),
        "exhaustive": np.mean([r.classical_queries for r in reference]),
        "exact": np.array([r.value == e.value for r, e in zip(results, reference, strict=True)]),
    }


def fitted_exponent(sizes: list[int], means: list[float], smallest: int = 4) -> float:
    kept = [(n, m) for n, m in zip(sizes, means, strict=True) if n >= smallest]
    return float(np.polyfit(*np.log(np.array(kept).T), 1)[0])


def sqrt_fit(sizes: list[int], means: list[float], smallest: int = 64) -> tuple[float, float]:
    """Least-squares a, b of mean oracle queries ≈ a·√|U| + b over |U| ≥ smallest."""
    kept = np.array([(n, m) for n, m in zip(sizes, means, strict=True) if n >= smallest])
    a, b = np.polyfit(np.sqrt(kept[:, 0]), kept[:, 1], 1)
    return float(a), float(b)


def plot(sizes: list[int], pooled: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = [r["queries"].mean() for r in pooled]
    figure, axis = plt.subplots(figsize=(6, 4.2), layout="constrained")
    axis.loglog(sizes, means, "o-", label="QRIM oracle queries (mean)")
    axis.loglog(
        sizes,
        [np.percentile(r["queries"], 95) for r in pooled],
        "s--",
        label="QRIM (95th percentile)",
    )
    axis.loglog(
        sizes, [r["classical"].mean() for r in pooled], "^:", label="QRIM classical evaluations"
    )
    axis.loglog(sizes, sizes, "k-", label="exhaustive search: |U|")
    axis.loglog(sizes, GOAL_CONSTANT * np.sqrt(sizes), color="grey", lw=0.8, label="4.2·√|U|")
    axis.set_xlabel("|U|, size of the uncertainty set")
    axis.set_ylabel("queries per inner minimization")
    axis.set_title(f"fitted exponent {fitted_exponent(sizes, means):.2f} (theory 0.5)")
    axis.legend(fontsize=8)
    figure.savefig(path, dpi=120)


def per_seed_table(sizes: list[int], seeds: list[int], rows: dict) -> None:
    print("| \\|U\\| | " + " | ".join(f"seed {s}" for s in seeds) + " | worst seed |")
    print("|---|" + "---|" * (len(seeds) + 1))
    for size in sizes:
        cells = [rows[seed, size] for seed in seeds]
        worst = max(
            range(len(seeds)),
            key=lambda k: (cells[k]["queries"].mean(), -cells[k]["exact"].mean()),
        )
        lowest = min(c["exact"].mean() for c in cells)
        text = [
            f"{c['queries'].mean() / math.sqrt(size):.2f}, {100 * c['exact'].mean():.1f}%"
            for c in cells
        ]
        print(
            f"| {size} | " + " | ".join(text) + f" | {seeds[worst]}: "
            f"{cells[worst]['queries'].mean() / math.sqrt(size):.2f}·√\\|U\\|; "
            f"lowest exact {100 * lowest:.1f}% |"
        )


def pooled_table(sizes: list[int], pooled: list[dict]) -> None:
    print(
        "| \\|U\\| | QRIM oracle mean | mean / √\\|U\\| | QRIM oracle p95 | QRIM classical "
        "| oracle + classical | exhaustive | mean / \\|U\\| | exact minimum |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, r in zip(sizes, pooled, strict=True):
        mean, classical = r["queries"].mean(), r["classical"].mean()
        print(
            f"| {size} | {mean:.1f} | {mean / np.sqrt(size):.2f} "
            f"| {np.percentile(r['queries'], 95):.0f} | {classical:.1f} | {mean + classical:.1f} "
            f"| {r['exhaustive']:.0f} | {mean / size:.2f} | {100 * r['exact'].mean():.2f}% |"
        )


def verdict(sizes: list[int], seeds: list[int], rows: dict) -> bool | None:
    """Issue #47's goal on every seed at |U| in GOAL_SIZES; None when no size is there."""
    judged = [n for n in sizes if GOAL_SIZES[0] <= n <= GOAL_SIZES[1]]
    if not judged:
        return None
    failures = [
        f"seed {seed}, |U| = {n}: {rows[seed, n]['queries'].mean() / math.sqrt(n):.2f}·√|U|, "
        f"{100 * rows[seed, n]['exact'].mean():.1f}% exact"
        for seed in seeds
        for n in judged
        if rows[seed, n]["queries"].mean() > GOAL_CONSTANT * math.sqrt(n)
        or rows[seed, n]["exact"].mean() < GOAL_EXACT
    ]
    goal = f"≥ {100 * GOAL_EXACT:.1f}% exact and mean ≤ {GOAL_CONSTANT}·√|U| on every seed"
    if failures:
        print(f"\nverdict: goal missed ({goal}) — " + "; ".join(failures))
        return False
    print(f"\nverdict: goal met ({goal}, |U| = {judged[0]} … {judged[-1]}, {len(seeds)} seeds)")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--tables", type=int, default=1000, help="minimizations per size and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=SEEDS)
    parser.add_argument("--plot", default="qrim_queries.png", help="PNG path")
    args = arguments(parser, sizes=[4, 8], tables=5, seeds=SEEDS[:2])
    rows = {
        (seed, size): measure(size, args.tables, seed)
        for seed, size in tqdm(
            [(seed, size) for seed in args.seeds for size in args.sizes], desc="seed × |U|"
        )
    }
    print(
        f"\n{args.tables} random tables per |U| and seed; per seed: mean oracle queries / "
        "√|U|, exact minimum"
    )
    per_seed_table(args.sizes, args.seeds, rows)
    pooled = [
        {
            key: (
                np.mean([rows[s, n][key] for s in args.seeds])
                if key == "exhaustive"
                else np.concatenate([rows[s, n][key] for s in args.seeds])
            )
            for key in ("queries", "classical", "exhaustive", "exact")
        }
        for n in args.sizes
    ]
    print(f"\nseeds pooled ({len(args.seeds)} × {args.tables} tables per |U|)")
    pooled_table(args.sizes, pooled)
    means = [r["queries"].mean() for r in pooled]
    if max(args.sizes) >= 64 and sum(n >= 64 for n in args.sizes) >= 2:
        a, b = sqrt_fit(args.sizes, means)
        print(f"\nfit over |U| ≥ 64: mean oracle queries ≈ {a:.2f}·√|U| {b:+.1f}")
    print(f"\nfitted exponent, all sizes: {fitted_exponent(args.sizes, means):.3f} (theory: 0.5)")
    plot(args.sizes, pooled, args.plot)
    print(f"plot: {args.plot}")
    met = verdict(args.sizes, args.seeds, rows)
    if met is None:
        print("\nverdict: none (no |U| from 64 to 1024 was run)")
        return 0 if args.smoke else 1
    return 0 if met else 1


if __name__ == "__main__":
    with published("qrim_queries"):
        code = main()
    sys.exit(code)
