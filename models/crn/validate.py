"""Validate a reduction: simulate the original and the reduced Napp–Adams CRN to steady
state and compare their beliefs on the surviving variables with each other, with BP,
with tree-reweighted BP (graphs with cycles) and (small graphs) with exact marginals. Both
CRNs start from uniform messages and beliefs: on loopy graphs with several BP fixed
points, matching initial conditions decide which one.

Before anything is compiled: the evidence is checked for probability zero (exactly where
elimination fits, else by the reduction's slices and BP), the original and the reduced
CRN's sizes are predicted and held against the budget, and a reduction that leaves no
variable to compare is refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ...backends.crn.base import NoSteadyStateError
from ...datasets.crn.factor_graph import FactorGraph
from ...datasets.crn.reaction_network import ReactionNetwork
from .bp import belief_propagation
from .elementary import elementary
from .errors import ImpossibleEvidenceError, NothingToCompareError, SizeBudgetError
from .exact import TooWideError, log_partition, marginals
from .lifted import colour_passing, compile_lifted
from .napp_adams import CompiledGraph, compile_graph
from .reductions import MOVES, Reduction, Step, reduce, with_evidence
from .robustness import basins, noise, rate_sensitivity, relaxation_time
from .size import Size, graph_size
from .trw import TooLargeForTRWError, tree_reweighted_bp

EXACT_LIMIT = 16
"""Exact marginals are computed when elimination tables stay within this many variables."""
MAX_REACTIONS = 1_000_000
"""Default budget: the most reactions a CRN of a validation may have (a million mass-action
reactions take about a minute to compile and seconds per right-hand side)."""


@dataclass(frozen=True)
class Analyses:
    """The checks beyond equal beliefs (`models/crn/robustness.py`): rate noise at each of
    `levels` (relative, e.g. 0.1 = ±10%) with `samples` draws each; `starts` random initial
    conditions; at `volumes`, `seeds` runs each of the stochastic simulator `stochastic`
    makes for (volume, seed) (empty volumes or no simulator: no stochastic runs); `seed` for
    every draw. Zero samples or starts skip those."""

    levels: Sequence[float] = (0.1, 0.5)
    samples: int = 4
    starts: int = 4
    volumes: Sequence[float] = ()
    seeds: int = 3
    stochastic: Callable[[float, int], Any] | None = None
    seed: int = 0


@dataclass
class Validation:
    """Beliefs on the survivors (rows: survivors) from BP, both CRNs, tree-reweighted BP
    ("trw"; graphs with cycles, None when too large) and exact inference (None when too
    wide); the largest differences between them; BP's fixed-point residual; the CRNs'
    conservation errors and max |dx/dt| at their rest points (`residual`; where the
    simulator found no rest, where it stopped, and `unrested` says why: its beliefs are
    None); BP's residual at the messages each CRN rests with (`bp_residual_at_rest`: 0 at
    a BP fixed point, inf where a message vanished; not for a lifted or given CRN); sizes
    before and after; whether the graph has a cycle."""

    survivors: tuple[str, ...]
    beliefs: dict[str, list[np.ndarray] | None]
    differences: dict[str, float]
    bp_residual: float
    bp_converged: bool
    conservation_error: dict[str, float]
    sizes: dict[str, dict[str, int]]
    applied: dict[str, int]
    loopy: bool
    steady_time: dict[str, float]
    networks: dict[str, ReactionNetwork]
    steps: tuple[Step, ...]
    declined: dict[str, int]
    kept: tuple[str, ...]
    bp_sweeps: int = 0
    robustness: dict[str, dict[str, Any]] = field(default_factory=dict)
    residual: dict[str, float] = field(default_factory=dict)
    unrested: dict[str, str] = field(default_factory=dict)
    bp_residual_at_rest: dict[str, float] = field(default_factory=dict)
    verified: dict[str, bool] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Everything but the beliefs and the networks, as JSON-ready values."""
        return {
            "survivors": list(self.survivors),
            "loopy": self.loopy,
            "differences": self.differences,
            "bp_residual": self.bp_residual,
            "bp_converged": self.bp_converged,
            "conservation_error": self.conservation_error,
            "sizes": self.sizes,
            "applied": self.applied,
            "steady_time": self.steady_time,
            "steps": [[s.move, s.variable, s.species, s.reactions] for s in self.steps],
            "declined": self.declined,
            "kept": list(self.kept),
            "bp_sweeps": self.bp_sweeps,
            "robustness": self.robustness,
            "rest_residual": self.residual,
            "unrested": self.unrested,
            "bp_residual_at_rest": self.bp_residual_at_rest,
            "rest_verified": self.verified,
        }

    def table(self) -> pa.Table:
        """One row per (surviving variable, state) with every method's belief."""
        rows = []
        bp = self.beliefs["bp"]
        assert bp is not None  # BP always runs
        for position, name in enumerate(self.survivors):
            for state in range(len(bp[position])):
                row: dict[str, Any] = {"variable": name, "state": state}
                for method, beliefs in self.beliefs.items():
                    row[method] = None if beliefs is None else float(beliefs[position][state])
                rows.append(row)
        return pa.Table.from_pylist(rows)


def validate_reduction(
    graph: FactorGraph,
    simulator: Any,
    moves: Iterable[str] = MOVES,
    evidence: Mapping[int, int] | None = None,
    keep: Iterable[int] = (),
    tolerance: float = 1e-13,
    given: CompiledGraph | None = None,
    lifted: bool = False,
    allow_growth: bool = False,
    max_reactions: int = MAX_REACTIONS,
    analyses: Analyses | None = None,
    elementary_steps: bool = False,
    reduction: Reduction | None = None,
) -> Validation:
    """Reduce `graph` (evidence applied as indicator factors to the original), simulate
    both CRNs on `simulator` (a CRNBackend) and compare. `given`: the original CRN as
    given (the chemical route, `graph` recovered from it) instead of compiling `graph`.
    `lifted`: compile the reduced graph with lifted compression (its variable and factor
    counts are then the groups'). `allow_growth`: apply moves that enlarge the CRN too.
    Raises SizeBudgetError when a CRN would exceed `max_reactions`, ImpossibleEvidenceError
    for evidence of probability zero, NothingToCompareError when no variable survives.
    `analyses`: sensitivity, basins, relaxation and noise of both CRNs (None: skipped).
    `elementary_steps`: also rewrite the reduced CRN into at most bimolecular reactions
    (`models/crn/elementary.py`), simulate it and compare ("crn_elementary").
    `reduction`: what `preflight` returned for these arguments (else it runs here)."""
    evidence = dict(evidence or {})
    if given is not None and evidence:
        raise ValueError("evidence on a given CRN: compile it in as indicator factors")
    original = with_evidence(graph, evidence) if evidence else graph
    if reduction is None:
        reduction = preflight(
            graph,
            moves,
            evidence,
            keep,
            allow_growth,
            max_reactions,
            compiled_given=given is not None,
        )
    survivors = list(reduction.survivors)
    results: dict[str, list[np.ndarray] | None] = {}
    sizes, conservation, times, networks, residuals = {}, {}, {}, {}, {}
    unrested: dict[str, str] = {}
    at_rest: dict[str, float] = {}
    verified: dict[str, bool] = {}
    robustness: dict[str, dict[str, Any]] = {}
    names = [graph.names[r] for r in survivors]
    for label, current, rows in (
        ("crn_original", original, survivors),
        ("crn_reduced", reduction.graph, list(range(len(survivors)))),
    ):
        counts = current.variables, len(current.factors)
        if label == "crn_original" and given is not None:
            compiled = given
        elif label == "crn_reduced" and lifted:
            colours = colour_passing(current)
            compiled, counts = compile_lifted(current, colours), colours.groups
        else:
            compiled = compile_graph(current)
        networks[label] = compiled.network
        sizes[label] = {
            "species": len(compiled.network.species),
            "reactions": compiled.network.reactions,
            "variables": counts[0],
            "factors": counts[1],
        }
        try:
            rest = simulator.steady_state(compiled.network, tolerance)
        except NoSteadyStateError as error:  # the verdict cannot tell: no rest to compare
            results[label], residuals[label], unrested[label] = None, error.residual, str(error)
            continue
        beliefs = compiled.beliefs(rest.concentrations)
        results[label] = [beliefs[r] for r in rows]
        if (
            compiled.network.species
            and not (label == "crn_reduced" and lifted)
            and not (label == "crn_original" and given is not None)
        ):  # species named by compile_graph: the messages they hold can be read back
            at_rest[label] = compiled.bp_residual(current, rest.concentrations)
        conservation[label] = compiled.conservation_error(rest.concentrations)
        times[label] = rest.time
        residuals[label] = rest.residual
        verified[label] = rest.verified
        if label == "crn_reduced" and elementary_steps:
            rewritten = elementary(compiled.network)
            networks["crn_elementary"] = rewritten.network
            rest_e = simulator.steady_state(rewritten.network, tolerance)
            every = compiled.beliefs(rest_e.concentrations[: len(compiled.network.species)])
            results["crn_elementary"] = [every[r] for r in rows]
            sizes["crn_elementary"] = {
                "species": len(rewritten.network.species),
                "reactions": rewritten.network.reactions,
                "variables": counts[0],
                "factors": counts[1],
            }
            conservation["crn_elementary"] = compiled.conservation_error(
                rest_e.concentrations[: len(compiled.network.species)]
            )
            times["crn_elementary"] = rest_e.time
            residuals["crn_elementary"] = rest_e.residual
        if analyses is not None:
            robustness[label] = _analyse(
                compiled, rows, names, simulator, analyses, tolerance, rest.concentrations
            )
    try:
        bp = belief_propagation(original, damping=0.5, tolerance=1e-14, max_iterations=20_000)
    except FloatingPointError:
        raise ImpossibleEvidenceError(
            "belief propagation finds the evidence impossible (a message vanished): the "
            "evidence has probability zero under the model, or BP cannot reach it"
        ) from None
    results["bp"] = [bp.beliefs[r] for r in survivors]
    loopy = has_cycle(original)
    if loopy:  # on a forest TRW is BP (every edge a bridge, ρ = 1)
        try:
            trw = tree_reweighted_bp(original).beliefs
            results["trw"] = [trw[r] for r in survivors]
        except (TooLargeForTRWError, FloatingPointError):  # too large; a message vanished
            results["trw"] = None  # the second opinion is left out, never the run
    try:
        results["exact"] = marginals(original, max_width=EXACT_LIMIT, variables=survivors)
    except TooWideError:
        results["exact"] = None
    return Validation(
        survivors=tuple(graph.names[r] for r in survivors),
        beliefs=results,
        differences=_differences(results),
        bp_residual=bp.residual,
        bp_converged=bp.converged,
        conservation_error=conservation,
        sizes=sizes,
        applied=reduction.applied,
        loopy=loopy,
        steady_time=times,
        networks=networks,
        steps=reduction.steps,
        declined=reduction.declined,
        kept=tuple(graph.names[v] for v in reduction.kept),
        bp_sweeps=bp.iterations,
        robustness=robustness,
        residual=residuals,
        unrested=unrested,
        bp_residual_at_rest=at_rest,
        verified=verified,
    )


def _analyse(
    compiled: CompiledGraph,
    rows: list[int],
    names: list[str],
    simulator: Any,
    analyses: Analyses,
    tolerance: float,
    rest: np.ndarray,
) -> dict[str, Any]:
    """The checks of `analyses` on one CRN at its steady state `rest`."""
    loose = max(tolerance, 1e-10)  # perturbed and random starts: beliefs to ~1e-10 suffice
    out: dict[str, Any] = {"relaxation_time": relaxation_time(compiled, rest)}
    if analyses.samples and analyses.levels:
        out["sensitivity"] = rate_sensitivity(
            compiled,
            rows,
            names,
            simulator,
            analyses.levels,
            analyses.samples,
            analyses.seed,
            loose,
        )
    if analyses.starts:
        out["basins"] = basins(
            compiled, rows, simulator, analyses.starts, analyses.seed, tolerance
        )  # to tell fixed points apart, the tight tolerance
    if analyses.volumes and analyses.stochastic is not None:
        every = compiled.beliefs(rest)
        deterministic = np.concatenate([every[r] for r in rows])
        out["noise"] = noise(
            compiled, rows, deterministic, analyses.volumes, analyses.seeds, analyses.stochastic
        )
    return out


def preflight(
    graph: FactorGraph,
    moves: Iterable[str],
    evidence: Mapping[int, int],
    keep: Iterable[int],
    allow_growth: bool,
    max_reactions: int,
    compiled_given: bool = False,
) -> Reduction:
    """Everything a validation refuses before compiling or simulating anything — the
    original CRN over the budget, evidence of probability zero, a reduction that leaves no
    variable, a reduced CRN over the budget — and the reduction itself (milliseconds)."""
    original = with_evidence(graph, evidence) if evidence else graph
    if not compiled_given:
        check_budget("the original CRN", graph_size(original), max_reactions)
    if evidence:
        check_evidence(graph, original, evidence)
    reduction = reduce(graph, moves, keep=keep, evidence=evidence, allow_growth=allow_growth)
    if not reduction.survivors:
        if len(evidence) == graph.variables:
            raise NothingToCompareError(
                "nothing to compare: every variable is observed", option="evidence"
            )
        raise NothingToCompareError(
            "nothing to compare: the reduction left no variable (name some to keep)",
            option="keep",
        )
    check_budget("the reduced CRN", graph_size(reduction.graph), max_reactions)
    return reduction


def check_budget(what: str, size: Size, max_reactions: int) -> None:
    """Refuse a CRN predicted to have more than `max_reactions` reactions."""
    if size.reactions > max_reactions:
        raise SizeBudgetError(
            f"{what} would have {size.reactions:,} reactions and {size.species:,} species, "
            f"more than the budget of {max_reactions:,} reactions (raise the budget, or "
            "reduce the graph first)"
        )


def check_evidence(graph: FactorGraph, original: FactorGraph, evidence: Mapping[int, int]) -> None:
    """Refuse evidence of probability zero, where exact elimination fits (else the
    reduction's slices and BP catch what they can)."""
    try:
        impossible = log_partition(original, max_width=EXACT_LIMIT) == -np.inf
    except TooWideError:
        return
    if impossible:
        shown = ", ".join(f"{graph.names[v]} = {graph.states[v][s]}" for v, s in evidence.items())
        raise ImpossibleEvidenceError(f"the evidence {shown} has probability zero under the model")


def _differences(results: dict[str, list[np.ndarray] | None]) -> dict[str, float]:
    pairs = [
        ("crn_reduced", "crn_original"),
        ("crn_elementary", "crn_reduced"),
        ("crn_original", "bp"),
        ("crn_reduced", "bp"),
        ("bp", "exact"),
        ("crn_original", "exact"),
        ("trw", "exact"),
        ("bp", "trw"),
    ]
    out: dict[str, float] = {}
    for first, second in pairs:
        gaps = belief_gaps(results, first, second)
        if gaps is not None:
            out[f"{first} vs {second}"] = max(gaps)
    return out


def belief_gaps(
    results: Mapping[str, list[np.ndarray] | None], first: str, second: str
) -> list[float] | None:
    """max |first − second| over the states of each survivor (rows as in `results`), or
    None when either was not computed."""
    a, b = results.get(first), results.get(second)
    if a is None or b is None:
        return None
    return [float(np.abs(x - y).max()) for x, y in zip(a, b, strict=True)]


def has_cycle(graph: FactorGraph) -> bool:
    """Whether the bipartite variable–factor graph has a cycle (union-find over edges)."""
    parent = list(range(graph.variables + len(graph.factors)))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for i, a in graph.edges():
        first, second = root(i), root(graph.variables + a)
        if first == second:
            return True
        parent[first] = second
    return False
