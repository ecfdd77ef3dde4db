"""Worst-case return over U of the QRIM robust policy against the nominal policy, per
environment (robust value iteration, QRIM on the exact Aer state vector).

    python benchmarks/qrim_robustness.py --uncertainty 16
"""

from __future__ import annotations

import argparse

from publish import published

from substrates.backends.registry import create_backend
from substrates.models.qrim import (
    ENVIRONMENTS,
    QuantumMinimumFinder,
    make_env,
    nominal_policy,
    robust_value_iteration,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uncertainty", type=int, default=16, help="|U|")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    backend = create_backend("quantum.aer")
    print(f"|U| = {args.uncertainty}; return from the start state, discount 0.95")
    print(
        "| environment | worst case: QRIM policy | worst case: nominal policy "
        "| nominal policy's worst member | under the nominal model: QRIM / nominal |"
    )
    print("|---|---|---|---|---|")
    for name in ENVIRONMENTS:
        mdp = make_env(name, args.uncertainty)
        robust = robust_value_iteration(mdp, QuantumMinimumFinder(backend, seed=args.seed)).policy
        nominal = nominal_policy(mdp)
        robust_worst, _ = mdp.worst_case_return(robust)
        nominal_worst, member = mdp.worst_case_return(nominal)
        at_nominal = [mdp.policy_values(p)[mdp.nominal, mdp.start] for p in (robust, nominal)]
        print(
            f"| {name} | {robust_worst:.4f} | {nominal_worst:.4f} | {mdp.members[member]} "
            f"| {at_nominal[0]:.4f} / {at_nominal[1]:.4f} |"
        )


if __name__ == "__main__":
    with published("qrim_robustness"):
        main()
