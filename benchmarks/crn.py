"""CRN sizes and speed.

1. Size table: species and reactions of the Napp–Adams CRN before and after BP-exact
   reduction (keeping the listed query variables) for chains, trees, an Ising grid, an HMM
   with its observations as evidence, and the Asia network with evidence; uniform Ising
   grids reduced and then lifted (colour passing).
   pgmpy's alarm and insurance (BIF from its wheel) with the tests' observations, kept
   variables by default (one per connected component), moves priced by size.
2. Steady state: crn.ode (continuation + Newton, numba Jacobian; and integrating, the old
   path, where it takes seconds) against libRoadRunner at its fastest we know: a fresh
   crn.roadrunner's first steady state (LLJIT at level 0 in its own process: load with
   conserved-moiety analysis, presimulation, NLEQ2), both from uniform messages.
3. SSA: events per second, crn.ssa (exact; and tau-leaping's reactions fired per second)
   against libRoadRunner's Gillespie integrator on the same stochastic model (the same
   volume; kinetic laws × the compartment, initial amounts in molecules), to the same end
   time: both fire about as many events (checked: the script stops if they differ by more
   than 25 %), so the ratio is at equal event counts; libRoadRunner's load is reported
   apart. Asia, cancer and alarm (reduced). Then the same runs on GillesPy2's compiled
   SSA (SSACSolver) when GillesPy2 is installed (not a dependency): the same propensities
   written out, a counter species every reaction produces for its exact event count, the
   C++ build reported apart.
4. crn.roadrunner's kept model: the calls of one validation of a CRN (a steady state, a
   trajectory, 8 perturbed rate sets), each on a fresh libRoadRunner load with the rates
   compiled in (the anchor: MCJIT, libRoadRunner's default, as crn.roadrunner loaded
   before; its per-call time measured on two calls, the total is 10 of them) against
   crn.roadrunner's one load (LLJIT at level 0, rates as parameters, in its own process)
   and its later calls, measured.
5. crn.torch: steady states per second at batch 1, 16 and 64 (random initial messages) on
   insurance's reduced CRN, against crn.ode solving the same number one at a time.

    python benchmarks/crn.py --repeats 3 [--full] [--docs]
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from typing import Any

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
    from substrates.datasets.crn.files import example_path as example_graph

    rng = np.random.default_rng(0)
    model, observed = hmm(30, 4, 3, seed=0)
    return [
        ("chain, 40 × 3 states", chain(40, 3, 0), {}, [0, 20, 39]),
        ("tree, 40 × 3 states", random_tree(40, 3, 0), {}, sorted(rng.choice(40, 3, False))),
        ("Ising grid 6 × 6", ising_grid(6, 6, 0.5, 0.3, 0), {}, []),
        ("HMM, T = 30, 4 states, observed", model, observed, [0, 10, 20, 29]),
        ("Asia, xray and dysp observed", read_uai(example_graph()), {6: 1, 7: 1}, [1, 3, 4]),
        ("alarm (pgmpy), 6 observed", *classic("alarm"), []),
        ("insurance (pgmpy), 3 observed", *classic("insurance"), []),
    ]


def size_table() -> None:
    print("| graph | kept | species before → after | reactions before → after | ratio |")
    print("|---|---|---|---|---|")
    for name, graph, evidence, keep in cases():
        original = with_evidence(graph, evidence) if evidence else graph
        reduced = reduce(graph, evidence=evidence, keep=keep).graph
        before, after = compile_graph(original).network, compile_graph(reduced).network
        print(
            f"| {name} | {len(keep) or 'default'} | {len(before.species):,} → "
            f"{len(after.species):,} | {before.reactions:,} → {after.reactions:,} | "
            f"{before.reactions / after.reactions:.0f}x |"
        )
    for side in (6, 10):
        graph = ferromagnet(side, side, 0.3, 0.2)
        before = compile_graph(graph).network
        after = compile_lifted(reduce(graph).graph).network
        print(
            f"| uniform Ising grid {side} × {side}, reduced and lifted | all | "
            f"{len(before.species):,} → {len(after.species):,} | {before.reactions:,} → "
            f"{after.reactions:,} | {before.reactions / after.reactions:.0f}x |"
        )


def classic(name: str) -> tuple[object, dict[int, int]]:
    """A network from pgmpy's wheel with the observations the tests use."""
    from substrates.datasets.crn.bif import read_bif
    from substrates.testing.crn import PGMPY_EVIDENCE, evidence_indices, pgmpy_network

    graph = read_bif(pgmpy_network(name))
    return graph, evidence_indices(graph, PGMPY_EVIDENCE[name])


def real_networks() -> list[tuple[str, object]]:
    """(label, network) for alarm and insurance with evidence, original and reduced."""
    out = []
    for name in ("alarm", "insurance"):
        graph, evidence = classic(name)
        out.append((f"{name}, observed", compile_graph(with_evidence(graph, evidence)).network))
        reduced = reduce(graph, evidence=evidence).graph
        out.append((f"{name}, observed, reduced", compile_graph(reduced).network))
    return out


def steady_states(repeats: int) -> None:
    ode = create_backend("crn.ode")
    integrate = create_backend("crn.ode", {"steady": "integrate"})
    print(
        "\n| steady state | species | reactions | crn.ode s | crn.ode integrating s | "
        "libRoadRunner s (crn.roadrunner: load + solve) | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    small = [
        ("Ising grid 4 × 4", compile_graph(ising_grid(4, 4, 0.5, 0.3, 0)).network),
        ("HMM, T = 8, observed", compile_graph(with_evidence(*hmm(8, 3, 3, 0))).network),
    ]
    for name, network in small + real_networks():
        ode.steady_state(network, 1e-10)  # compile the numba kernels
        ours = best(lambda n=network: ode.steady_state(n, 1e-10), repeats)
        slow = network.reactions > 3000
        stepped = (
            "—" if slow else f"{best(lambda n=network: integrate.steady_state(n, 1e-10), 1):.2f}"
        )
        theirs = best(lambda n=network: _roadrunner_first(n), 1 if slow else repeats)
        print(
            f"| {name} | {len(network.species):,} | {network.reactions:,} | {ours:.3f} | "
            f"{stepped} | {theirs:.1f} | {theirs / ours:,.0f}x |"
        )


def _roadrunner_first(network: Any) -> None:
    """A fresh crn.roadrunner's first steady state: its process started, the model loaded,
    presimulated and solved."""
    create_backend("crn.roadrunner").steady_state(network, 1e-10)


def _roadrunner_steady(network: object) -> None:
    """libRoadRunner as crn.roadrunner called it before it kept models: its defaults
    (MCJIT), the SBML with its rates compiled in, loaded with conserved-moiety analysis,
    presimulated 200 time units, then NLEQ2 — a fresh load per call."""
    import roadrunner

    options = roadrunner.LoadSBMLOptions()
    options.conservedMoieties = True
    runner = roadrunner.RoadRunner(to_sbml(network), options)
    runner.getIntegrator().setValue("relative_tolerance", 1e-10)
    runner.getIntegrator().setValue("absolute_tolerance", 1e-14)
    runner.simulate(0, 200.0, 2)
    runner.steadyState()


def ssa_speed() -> None:
    from substrates.backends.crn.mass_action import MassAction
    from substrates.datasets.crn.bif import read_bif
    from substrates.testing.crn import pgmpy_network

    print(
        "\n| SSA (volume 1000, to ~300,000 events) | reactions | crn.ssa events | crn.ssa "
        "events / s | tau-leaping reactions fired / s | libRoadRunner gillespie events | "
        "its events / s | its load s | ratio (exact, events / s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    asia = compile_graph(with_evidence(*cases()[4][1:3])).network
    alarm_graph, alarm_evidence = classic("alarm")
    alarm = compile_graph(reduce(alarm_graph, evidence=alarm_evidence).graph).network
    cancer = compile_graph(read_bif(pgmpy_network("cancer"))).network
    volume = 1000.0
    measured = []
    for name, network in (
        ("Asia, observed", asia),
        ("cancer (pgmpy)", cancer),
        ("alarm, observed, reduced", alarm),
    ):
        flux = volume * float(MassAction(network).rates(network.initial).sum())
        t_end = 3e5 / flux  # about 300,000 events from the initial state
        rates, fired = [], 0
        for method in ("direct", "tau_leap"):
            ssa = create_backend("crn.ssa", {"volume": volume, "method": method})
            ssa.simulate(network, np.array([0.0, 0.01]))  # compile
            start = time.perf_counter()
            _, _, events = ssa._run(network, t_end, np.inf, np.empty(0))
            rates.append(events / (time.perf_counter() - start))
            fired = fired or events
        measured.append((name, network, t_end, fired, rates[0]))
        theirs = _roadrunner_gillespie(network, volume, t_end, LIMIT_S)
        if theirs is None:  # a lower bound: not done in LIMIT_S
            print(
                f"| {name} | {network.reactions:,} | {fired:,} | {rates[0]:,.0f} | "
                f"{rates[1]:,.0f} | not done in {LIMIT_S:.0f} s | — | — | "
                f"> {rates[0] * LIMIT_S / fired:,.0f}x |"
            )
            continue
        events, per_second, load = theirs
        same_events(name, "libRoadRunner", events, fired)
        print(
            f"| {name} | {network.reactions:,} | {fired:,} | {rates[0]:,.0f} | "
            f"{rates[1]:,.0f} | {events:,} | {per_second:,.0f} | {load:.1f} | "
            f"{rates[0] / per_second:.1f}x |"
        )
    gillespy2_speed(measured, volume)


def same_events(name: str, who: str, events: int, fired: int) -> None:
    """Stop the script unless `who` fired about as many events as crn.ssa (within 25 %):
    the same dynamics to the same end time do, so the ratios are at equal event counts."""
    if not 0.8 < events / fired < 1.25:
        raise SystemExit(
            f"{name}: {who} fired {events:,} events, crn.ssa {fired:,}: the two runs are not "
            "the same stochastic model (volume or kinetic laws differ)"
        )


def gillespy2_speed(measured: list[tuple[str, object, float, int, float]], volume: float) -> None:
    """The same runs on GillesPy2's compiled SSA (SSACSolver), when GillesPy2 is installed
    (`pip install gillespy2`; not a dependency): the same propensities (written out, with
    the volume), to the same end time; a counter species every reaction produces gives its
    events exactly; the C++ build is reported apart."""
    try:
        import gillespy2
    except ImportError:
        print("\nGillesPy2 is not installed (pip install gillespy2): its table is left out.")
        return
    print(
        f"\n| SSA against GillesPy2 {gillespy2.__version__} SSACSolver (volume "
        f"{volume:g}) | reactions | crn.ssa events | crn.ssa events / s | GillesPy2 events | "
        "its events / s | its build s | ratio (events / s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, network, t_end, fired, rate in measured:
        theirs = _in_child(_gillespy2_worker, (network, volume, t_end), LIMIT_S)
        if theirs is None:
            print(
                f"| {name} | {network.reactions:,} | {fired:,} | {rate:,.0f} | not done in "  # type: ignore[attr-defined]
                f"{LIMIT_S:.0f} s | — | — | > {rate * LIMIT_S / fired:,.0f}x |"
            )
            continue
        events, per_second, build = theirs
        same_events(name, "GillesPy2", events, fired)
        print(
            f"| {name} | {network.reactions:,} | {fired:,} | {rate:,.0f} | {events:,} | "  # type: ignore[attr-defined]
            f"{per_second:,.0f} | {build:.1f} | {rate / per_second:.1f}x |"
        )


def _gillespy2_worker(network: object, volume: float, t_end: float, out: object) -> None:
    """Build the stochastic model as crn.ssa sees it — propensity k·V·Π_s Π_{m<ν}(n_s − m)/V
    — compile GillesPy2's C++ SSA for it, run one trajectory to t_end, count events."""
    import gillespy2

    n: Any = network
    model = gillespy2.Model(name="crn")
    counts = np.rint(n.initial * volume).astype(int)
    species = [
        gillespy2.Species(name=f"s{i}", initial_value=int(c), mode="discrete")
        for i, c in enumerate(counts)
    ]
    fired = gillespy2.Species(name="fired", initial_value=0, mode="discrete")
    model.add_species([*species, fired])
    for r in range(n.reactions):
        reactants: dict[object, int] = {}
        factors: list[str] = []
        for e in range(n.reactant_offsets[r], n.reactant_offsets[r + 1]):
            which, power = int(n.reactant_species[e]), int(n.reactant_coefficients[e])
            reactants[species[which]] = power
            factors += [f"s{which}" if m == 0 else f"(s{which} - {m})" for m in range(power)]
        products: dict[object, int] = {fired: 1}
        for e in range(n.product_offsets[r], n.product_offsets[r + 1]):
            products[species[int(n.product_species[e])]] = int(n.product_coefficients[e])
        scale = float(n.rates[r]) * volume ** (1 - len(factors))
        model.add_reaction(
            gillespy2.Reaction(
                name=f"r{r}",
                reactants=reactants,
                products=products,
                propensity_function=" * ".join([repr(scale), *factors]),
            )
        )
    model.timespan(gillespy2.TimeSpan.linspace(t=t_end, num_points=2))
    start = time.perf_counter()
    solver = gillespy2.SSACSolver(model=model)
    build = time.perf_counter() - start
    start = time.perf_counter()
    result = model.run(solver=solver, number_of_trajectories=1, seed=1)
    events = int(result["fired"][-1])
    out.put((events, events / (time.perf_counter() - start), build))  # type: ignore[attr-defined]


LIMIT_S = 300.0
"""How long libRoadRunner's Gillespie integrator may run before its rate is bounded."""


def _stochastic_sbml(network: object, volume: float) -> str:
    """The network's SBML with each kinetic law times the compartment `cell` of size
    `volume` (a rate in amount per time, the SBML convention a Gillespie solver reads as
    molecules per time: k·V·Π(n/V)), so libRoadRunner simulates the same stochastic model
    as crn.ssa at that volume; the deterministic dynamics are unchanged."""
    import libsbml

    document = libsbml.readSBMLFromString(to_sbml(network))
    model = document.getModel()
    model.getCompartment("cell").setSize(volume)
    for reaction in model.getListOfReactions():
        law = reaction.getKineticLaw()
        law.setMath(libsbml.parseL3Formula(f"cell * ({libsbml.formulaToL3String(law.getMath())})"))
    return libsbml.writeSBMLToString(document)


def _gillespie_worker(sbml: str, counts: list[float], t_end: float, out: object) -> None:
    import roadrunner

    start = time.perf_counter()
    runner = roadrunner.RoadRunner(sbml)
    load = time.perf_counter() - start
    runner.setIntegrator("gillespie")
    for i, value in enumerate(counts):  # molecule counts: amounts, not concentrations
        runner.setValue(f"init(s{i})", value)
    runner.reset()  # (this also resets the integrator's settings: set them after)
    integrator = runner.getIntegrator()
    integrator.setValue("variable_step_size", True)
    integrator.setValue("seed", 1)
    integrator.setValue("max_output_rows", 100_000_000)  # one row per event
    runner.timeCourseSelections = ["time"]  # one row per event, no state copied out
    start = time.perf_counter()
    trace = runner.simulate(0, t_end)
    events = trace.shape[0] - 1
    out.put((events, events / (time.perf_counter() - start), load))  # type: ignore[attr-defined]


def _roadrunner_gillespie(
    network: object, volume: float, t_end: float, limit: float
) -> tuple[int, float, float] | None:
    """(events fired, events per second, load s) of libRoadRunner's Gillespie integrator
    over [0, t_end] at `volume`, in a child process (the load timed apart), or None when it
    has not finished within `limit`."""
    counts = np.rint(network.initial * volume).tolist()  # type: ignore[attr-defined]
    sbml = _stochastic_sbml(network, volume)
    return _in_child(_gillespie_worker, (sbml, counts, t_end), limit)


def _in_child(
    worker: Any, arguments: tuple[object, ...], limit: float
) -> tuple[int, float, float] | None:
    """worker(*arguments, queue) in a spawned process: what it puts on the queue, or None
    when it has not answered within `limit` (+ 120 s for its start-up); the script stops
    when the child dies without an answer."""
    import multiprocessing
    import queue as queue_module

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=worker, args=(*arguments, queue))
    child.start()
    deadline = time.monotonic() + limit + 120
    try:
        while time.monotonic() < deadline:
            try:
                events, per_second, start_up = queue.get(timeout=1.0)
                return int(events), float(per_second), float(start_up)
            except queue_module.Empty:
                if not child.is_alive() and queue.empty():
                    raise SystemExit(f"{worker.__name__} died (exit {child.exitcode})") from None
        return None
    finally:
        child.kill()
        child.join()


ROBUSTNESS_SAMPLES = 8
"""Perturbed rate sets a validation runs per CRN by default (crn-validate --samples)."""


def roadrunner_reuse(full: bool) -> None:
    """The kept model against a load per call (see the module docstring, part 4)."""
    from dataclasses import replace

    print(
        f"\n| crn.roadrunner: a validation's 10 calls (steady state, trajectory, "
        f"{ROBUSTNESS_SAMPLES} rate sets) | reactions | a load per call: s each | its 10 calls s "
        "| crn.roadrunner: first call s (load) | later calls s each | its 10 calls s | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for name, network in real_networks():
        if network.reactions > 6000 and not full:
            skipped = "not run (minutes a load; --full) |" + " — |" * 5
            print(f"| {name} | {network.reactions:,} | {skipped}")
            continue
        rated = [network] + [
            replace(network, rates=network.rates * rng.uniform(0.9, 1.1, network.reactions))
            for _ in range(ROBUSTNESS_SAMPLES)
        ]
        per_call = best(lambda n=network: _roadrunner_steady(n), 2)
        kept = create_backend("crn.roadrunner")
        start = time.perf_counter()
        kept.steady_state(network, 1e-10)
        first = time.perf_counter() - start
        start = time.perf_counter()
        kept.simulate(network, np.linspace(0.0, 10.0, 11))
        for variant in rated[1:]:
            kept.steady_state(variant, 1e-10)
        later = (time.perf_counter() - start) / (len(rated))
        assert kept.loads == 1, kept.loads
        ours = first + later * len(rated)
        theirs = per_call * (len(rated) + 1)
        print(
            f"| {name} | {network.reactions:,} | {per_call:.1f} | {theirs:.0f} | {first:.1f} | "
            f"{later:.2f} | {ours:.1f} | {theirs / ours:.1f}x |"
        )


def torch_batches(repeats: int) -> None:
    ode, torch_backend = create_backend("crn.ode"), create_backend("crn.torch")
    graph, evidence = classic("insurance")
    compiled = compile_graph(reduce(graph, evidence=evidence).graph)
    one = best(lambda: ode.steady_state(compiled.network, 1e-10), repeats, warm=True)
    print(
        "\n| crn.torch (insurance, observed, reduced) batch | seconds | steady states / s | "
        "vs crn.ode one by one |"
    )
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    for batch in (1, 16, 64):
        initial = np.empty((batch, len(compiled.network.species)))
        for group in compiled.conserved:
            initial[:, list(group)] = rng.dirichlet(np.ones(len(group)), batch)
        seconds = best(
            lambda x=initial: torch_backend.steady_states(compiled.network, x, tolerance=1e-10),
            repeats if batch < 64 else 1,
        )
        print(
            f"| {batch} | {seconds:.3f} | {batch / seconds:,.1f} | {batch * one / seconds:.2f}x |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parts = {"sizes": None, "steady": None, "ssa": None, "roadrunner": None, "torch": None}
    parser.add_argument(
        "--part", choices=list(parts), action="append", help="only these tables (default: all)"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="also a load per call on CRNs over 6,000 reactions (MCJIT: minutes a load)",
    )
    args = parser.parse_args()
    chosen = set(args.part or parts)
    if "sizes" in chosen:
        size_table()
    if "steady" in chosen:
        steady_states(args.repeats)
    if "ssa" in chosen:
        ssa_speed()
    if "roadrunner" in chosen:
        roadrunner_reuse(args.full)
    if "torch" in chosen:
        torch_batches(args.repeats)


if __name__ == "__main__":  # the guard the spawned Gillespie child needs
    if "--docs" in sys.argv and "--part" in sys.argv:
        sys.exit("--docs --part: the page's block holds every table; publish a full run")
    with published("crn"):
        main()
