"""QRIM's search rules compared on simulated measurement statistics (for tuning only).

`models.qrim.search.durr_hoyer` itself runs on random normal tables; each Grover circuit's
measurement is drawn from its ideal distribution — a member below the threshold with
probability sin²((2r + 1)θ), θ = asin √(t/N) for t such members, uniformly among them,
else uniformly among the rest — which is what the exact state vector gives (the
benchmark `qrim_queries.py` draws one measurement per circuit from Aer's). No circuit is
simulated, so thousands of tables per size take seconds.

Tuning seed: the tables and the searches' randomness come from --seed (1000, the seed the
shipped PATIENCE and CONFIRM_MARKED were chosen on). Never tune on the seeds a benchmark
reports: those are declared in `qrim_queries.py`.

    python benchmarks/qrim_search_rules.py --tables 4000 \\
        --rules "1.0:1,2,3:8" "1.25:1,3:8" "1.25:1,3:12"
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from timing import arguments

from substrates.models.qrim.search import CONFIRM_MARKED, MIN_PATIENCE, PATIENCE, durr_hoyer


def parse_rule(text: str) -> tuple[float, tuple[int, ...], int]:
    """'patience:k1,k2,…:min_patience' → (patience in √N, confirmation counts, minimum)."""
    patience, confirm, least = text.split(":")
    return float(patience), tuple(int(k) for k in confirm.split(",")), int(least)


def simulate(
    rule: tuple[float, tuple[int, ...], int], size: int, tables: int, seed: int
) -> tuple[float, float]:
    """(mean oracle queries / √size, fraction of searches ending at the exact minimum)."""
    patience, confirm, least = rule
    rng = np.random.default_rng(seed)
    queries, exact = [], 0
    for _ in range(tables):
        values = rng.normal(size=size)
        order = np.argsort(values)
        rank = np.empty(size, dtype=int)
        rank[order] = np.arange(size)
        search = durr_hoyer(
            size, values.__getitem__, rng, patience, confirm=confirm, min_patience=least
        )
        request = next(search)
        try:
            while True:
                below = int(rank[request.threshold_index])  # members better than it
                theta = math.asin(math.sqrt(below / size))
                hit = below and rng.random() < math.sin((2 * request.iterations + 1) * theta) ** 2
                pick = rng.integers(below) if hit else below + rng.integers(size - below)
                request = search.send(int(order[pick]))
        except StopIteration as stop:
            outcome = stop.value
        queries.append(outcome.oracle_queries)
        exact += rank[outcome.index] == 0
    return float(np.mean(queries)) / math.sqrt(size), exact / tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shipped = f"{PATIENCE}:{','.join(map(str, CONFIRM_MARKED))}:{MIN_PATIENCE}"
    parser.add_argument("--rules", nargs="+", default=[shipped], help="patience:k,…:minimum")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--tables", type=int, default=2000, help="tables per size")
    parser.add_argument("--seed", type=int, default=1000, help="the tuning seed")
    args = arguments(parser, sizes=[16], tables=20)
    print(f"{args.tables} tables per size, tuning seed {args.seed}; shipped rule {shipped}\n")
    print(
        "| rule (patience:confirm:minimum) | " + " | ".join(f"N = {n}" for n in args.sizes) + " |"
    )
    print("|---|" + "---|" * len(args.sizes))
    for text in args.rules:
        cells = [
            "{:.2f}·√N, {:.2%} exact".format(*simulate(parse_rule(text), n, args.tables, args.seed))
            for n in args.sizes
        ]
        print(f"| {text} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
