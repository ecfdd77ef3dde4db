"""QRIM's search rule against the rule it replaced, on simulated measurement statistics.

`models.qrim.search.durr_hoyer` itself runs on random normal tables; each Grover circuit's
measurement is drawn from its ideal distribution — a member below the threshold with
probability sin²((2r + 1)θ), θ = asin √(t/N) for t such members, uniformly among them,
else uniformly among the rest — which is what the exact state vector gives (the
benchmark `qrim_queries.py` draws one measurement per circuit from Aer's). No circuit is
simulated, so thousands of tables per size take seconds.

The anchor, run on the same tables in the same run, is the rule of release 0.x before
this one: BBHT's randomized counts (range growing by 6/5 after each failure, reset after an
improvement); after √N (at least 8) oracle applications without improvement, one Grover
run at the count optimal for 1, 2 and 3 marked members, stopping when none finds a
better member. The shipped rule has one setting, its tolerance; the table shows what
others would cost. Tables and searches draw from --seed (1000): never the seeds
`qrim_queries.py` reports.

    python benchmarks/qrim_search_rules.py --tables 4000
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Generator

import numpy as np
from publish import published
from timing import arguments

from substrates.models.qrim.search import TOLERANCE, Request, durr_hoyer, query_budget

Search = Generator[Request, int, tuple[int, int]]


def previous_rule(num_items: int, query: Callable[[int], float], rng) -> Search:
    """The replaced rule (see the module docstring): yields requests, returns (index, oracle)."""
    best_index = int(rng.integers(num_items))
    best = query(best_index)
    oracle = quiet = 0
    m = 1.0
    while oracle < query_budget(num_items):
        if quiet >= max(math.sqrt(num_items), 8):
            for marked in (k for k in (1, 2, 3) if k < num_items):
                count = max(
                    0, round(math.pi / (4 * math.asin(math.sqrt(marked / num_items))) - 0.5)
                )
                candidate = yield Request(best_index, count)
                oracle += count
                if query(candidate) < best:
                    best_index, best, m, quiet = candidate, query(candidate), 1.0, 0
                    break
            else:
                break
            continue
        count = int(rng.integers(0, math.ceil(m)))
        candidate = yield Request(best_index, count)
        oracle += count
        quiet += max(count, 1)
        if query(candidate) < best:
            best_index, best, m, quiet = candidate, query(candidate), 1.0, 0
        else:
            m = min(6 / 5 * m, math.sqrt(num_items))
    return best_index, oracle


def shipped_rule(tolerance: float) -> Callable[..., Search]:
    def search(num_items: int, query: Callable[[int], float], rng) -> Search:
        outcome = yield from durr_hoyer(num_items, query, rng, tolerance=tolerance)
        return outcome.index, outcome.oracle_queries

    return search


def simulate(rule: Callable[..., Search], size: int, tables: int, seed: int) -> tuple[float, int]:
    """(mean oracle queries / √size, searches that missed the exact minimum)."""
    rng = np.random.default_rng(seed)
    queries, missed = [], 0
    for _ in range(tables):
        values = rng.normal(size=size)
        order = np.argsort(values)
        rank = np.empty(size, dtype=int)
        rank[order] = np.arange(size)
        search = rule(size, values.__getitem__, rng)
        request = next(search)
        try:
            while True:
                below = int(rank[request.threshold_index])  # members better than it
                theta = math.asin(math.sqrt(below / size))
                hit = below and rng.random() < math.sin((2 * request.iterations + 1) * theta) ** 2
                pick = rng.integers(below) if hit else below + rng.integers(size - below)
                request = search.send(int(order[pick]))
        except StopIteration as stop:
            index, oracle = stop.value
        queries.append(oracle)
        missed += rank[index] != 0
    return float(np.mean(queries)) / math.sqrt(size), missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tolerances", type=float, nargs="+", default=[1e-2, 3e-3, TOLERANCE, 3e-4]
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 64, 256, 1024])
    parser.add_argument("--tables", type=int, default=2000, help="tables per size")
    parser.add_argument("--seed", type=int, default=1000, help="the tables' seed")
    args = arguments(parser, sizes=[16], tables=20)
    rules = {"previous rule (anchor)": previous_rule} | {
        f"posterior, tolerance {t:g}{' (shipped)' if t == TOLERANCE else ''}": shipped_rule(t)
        for t in args.tolerances
    }
    results = {
        name: [simulate(rule, n, args.tables, args.seed) for n in args.sizes]
        for name, rule in rules.items()
    }
    anchor = results["previous rule (anchor)"]
    print(
        f"{args.tables} tables per size, seed {args.seed}; mean oracle queries / √N, "
        "missed minima, and queries against the anchor\n"
    )
    print("| rule | " + " | ".join(f"N = {n}" for n in args.sizes) + " |")
    print("|---|" + "---|" * len(args.sizes))
    for name, cells in results.items():
        text = [
            f"{mean:.2f}·√N, {missed} missed" + ("" if cells is anchor else f", {mean / base:.2f}x")
            for (mean, missed), (base, _) in zip(cells, anchor, strict=True)
        ]
        print(f"| {name} | " + " | ".join(text) + " |")


if __name__ == "__main__":
    with published("qrim_search_rules"):
        main()
