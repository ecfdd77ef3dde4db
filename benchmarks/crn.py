"""CRN sizes and speed.

1. Size table: species and reactions of the Napp–Adams CRN before and after BP-exact
   reduction (keeping the listed query variables) for chains, trees, an Ising grid, an HMM
   with its observations as evidence, and the Asia network with evidence; uniform Ising
   grids reduced and then lifted (colour passing).
2. Steady state: crn.ode (scipy BDF, numba Jacobian) against libRoadRunner (NLEQ2 after a
   presimulation) on the same SBML, both from uniform messages, best of --repeats.
3. SSA: reaction events per second, crn.ssa against libRoadRunner's Gillespie integrator.
4. crn.torch: steady states per second at batch 1, 64 and 1024 (random initial messages),
   against crn.ode solving the same number one at a time.

    python benchmarks/crn.py --repeats 3
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np
from publish import published
from timing import best

from substrates.backends.registry import create_backend
from substrates.datasets.crn.generators import chain, ferromagnet, hmm, ising_grid, random_tree
from substrates.datasets.crn.sbml import to_sbml
from substrates.datasets.crn.uai import read_uai
from substrates.models.crn.lifted import compile_lifted
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.reductions import reduce, with_evidence

print = functools.partial(print, flush=True)  # tables appear as they are measured


def cases() -> list[tuple[str, object, dict, list[int]]]:
    from substrates.adapters.runs.crn_validate_run import example_graph

    rng = np.random.default_rng(0)
    model, observed = hmm(30, 4, 3, seed=0)
    return [
        ("chain, 40 × 3 states", chain(40, 3, 0), {}, [0, 20, 39]),
        ("tree, 40 × 3 states", random_tree(40, 3, 0), {}, sorted(rng.choice(40, 3, False))),
        ("Ising grid 6 × 6", ising_grid(6, 6, 0.5, 0.3, 0), {}, []),
        ("HMM, T = 30, 4 states, observed", model, observed, [0, 10, 20, 29]),
        ("Asia, xray and dysp observed", read_uai(example_graph()), {6: 1, 7: 1}, [1, 3, 4]),
    ]  # fmt: skip


def size_table() -> None:
    print("| graph | kept | species before → after | reactions before → after | ratio |")
    print("|---|---|---|---|---|")
    for name, graph, evidence, keep in cases():
        original = with_evidence(graph, evidence) if evidence else graph
        reduced = reduce(graph, evidence=evidence, keep=keep).graph
        before, after = compile_graph(original).network, compile_graph(reduced).network
        print(f"| {name} | {len(keep) or 'all'} | {len(before.species):,} → "
              f"{len(after.species):,} | {before.reactions:,} → {after.reactions:,} | "
              f"{before.reactions / after.reactions:.0f}x |")  # fmt: skip
    for side in (6, 10):
        graph = ferromagnet(side, side, 0.3, 0.2)
        before = compile_graph(graph).network
        after = compile_lifted(reduce(graph).graph).network
        print(f"| uniform Ising grid {side} × {side}, reduced and lifted | all | "
              f"{len(before.species):,} → {len(after.species):,} | {before.reactions:,} → "
              f"{after.reactions:,} | {before.reactions / after.reactions:.0f}x |")  # fmt: skip


def speed(repeats: int) -> None:
    import roadrunner

    ode, rr = create_backend("crn.ode"), create_backend("crn.roadrunner")
    print("\n| steady state | species | reactions | crn.ode s | libRoadRunner s | ratio |")
    print("|---|---|---|---|---|---|")
    small = [
        ("Ising grid 4 × 4", ising_grid(4, 4, 0.5, 0.3, 0), {}),
        ("HMM, T = 8, observed", *hmm(8, 3, 3, 0)),
        cases()[4][:3],
    ]
    for name, graph, evidence in small:
        network = compile_graph(with_evidence(graph, evidence) if evidence else graph).network
        ode.steady_state(network, 1e-10)  # compile the numba kernels
        ours = best(lambda n=network: ode.steady_state(n, 1e-10), repeats)
        theirs = best(lambda n=network: rr.steady_state(n, 1e-8), repeats)
        print(f"| {name} | {len(network.species)} | {network.reactions} | {ours:.3f} | "
              f"{theirs:.3f} | {theirs / ours:.2f}x |")  # fmt: skip

    name, graph, evidence, _ = cases()[4]
    network = compile_graph(with_evidence(graph, evidence)).network
    volume, t_end = 1000.0, 20.0
    ssa = create_backend("crn.ssa", {"volume": volume})
    ssa.simulate(network, np.array([0.0, 1.0]))  # compile
    counts = np.rint(network.initial * volume)
    start = time.perf_counter()
    _, _, events = ssa._run(network, t_end, np.inf, np.empty(0))
    ours = events / (time.perf_counter() - start)
    runner = roadrunner.RoadRunner(to_sbml(network))
    runner.setIntegrator("gillespie")
    runner.getIntegrator().setValue("variable_step_size", True)
    runner.getIntegrator().setValue("seed", 1)
    for i, value in enumerate(counts):  # amounts, as molecule counts
        runner.setValue(f"init([s{i}])", value)
    runner.setValue("cell", volume)
    start = time.perf_counter()
    trace = runner.simulate(0, t_end)
    theirs = (trace.shape[0] - 1) / (time.perf_counter() - start)
    print(f"\n| SSA ({name}, volume {volume:.0f}) | events / s | ratio |")
    print("|---|---|---|")
    print(f"| crn.ssa | {ours:,.0f} | {ours / theirs:.1f}x |")
    print(f"| libRoadRunner gillespie | {theirs:,.0f} | 1.0x |")

    torch_backend = create_backend("crn.torch")
    compiled = compile_graph(with_evidence(graph, evidence))
    one = best(lambda: ode.steady_state(compiled.network, 1e-10), repeats)
    print(f"\n| crn.torch ({name}) batch | seconds | steady states / s | vs crn.ode one by one |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for batch in (1, 64, 1024):
        initial = np.empty((batch, len(compiled.network.species)))
        for group in compiled.conserved:
            initial[:, list(group)] = rng.dirichlet(np.ones(len(group)), batch)
        seconds = best(
            lambda x=initial: torch_backend.steady_states(compiled.network, x, tolerance=1e-10),
            repeats if batch < 1024 else 1,
        )
        print(f"| {batch} | {seconds:.3f} | {batch / seconds:,.1f} | "
              f"{batch * one / seconds:.1f}x |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    size_table()
    speed(args.repeats)


if __name__ == "__main__":
    with published("crn"):
        main()
