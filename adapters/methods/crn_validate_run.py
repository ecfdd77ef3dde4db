"""`substrates run crn-validate`: reduce a factor graph, simulate the original and the reduced
Napp–Adams CRN on the configured backend, and compare their beliefs with BP and exact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from ...backends.crn.base import CRNBackend, NoSteadyStateError
from ...backends.registry import create_backend
from ...datasets.crn.files import example_path, read_graph
from ...datasets.crn.reaction_network import ReactionNetwork
from ...datasets.crn.sbml import read_sbml, to_sbml
from ...errors import InputFileError
from ...models.crn.recovery import RecoveryError, recover
from ...models.crn.validate import Analyses, preflight, validate_reduction
from ...models.crn.verdict import judge
from ...verdicts import Check, Verdict
from ..runs.plots import beliefs_figure
from .crn_validate import CrnValidateParameters
from .lifecycle import Outcome, RunContext


def run_crn_validate(p: CrnValidateParameters, run: RunContext) -> Outcome:
    """Validate the reductions of `p.graph` (default: the shipped Asia network), or of a
    given `p.crn` (SBML: the chemical route, recover → reduce → recompile), simulated on
    the `hardware` backend; writes both CRNs as SBML beside the beliefs."""
    backend = run.backend("hardware", CRNBackend)
    given = None
    if p.crn:
        path = Path(p.crn)
        try:
            network = read_sbml(path)
        except InputFileError as error:
            raise error.about(path) from None
        try:
            recovered = recover(network)
        except RecoveryError as error:
            return _simulated_only(network, path, str(error), p, run, backend)
        model, given = recovered.graph, recovered.compiled
    else:
        path = Path(p.graph) if p.graph else example_path()
        model = read_graph(path, p.max_table_entries)
    observed = p.observed(model)
    kept = p.kept(model, observed)
    analyses = Analyses(p.levels, p.samples, p.starts, p.ssa_volumes, stochastic=_ssa)
    limits = (p.allow_growth, p.max_reactions)
    reduction = preflight(model, p.moves, observed, kept, *limits, given is not None)
    parameters = p.model_dump(exclude={"hardware", "graph", "crn", "reduce", "max_table_entries"})
    run.begin(
        {
            "crn" if given else "graph": str(path),
            "reduce": list(p.moves),
            **parameters,
            "perturbation": list(p.levels),
            "volumes": list(p.ssa_volumes),
        }
    )
    result = validate_reduction(
        model,
        backend,
        p.moves,
        observed,
        kept,
        p.tolerance,
        given,
        p.lifted,
        *limits,
        analyses,
        p.elementary,
        reduction,
    )
    texts = {f"{label}.xml": to_sbml(crn, label) for label, crn in result.networks.items()}
    verdict = judge(result, p.tolerances(), stochastic=backend.capabilities.stochastic)
    table = result.table()
    figure = beliefs_figure(table, f"beliefs of the survivors of {path.name}: {verdict.outcome}")
    return Outcome(
        table, result.summary(), figures={"beliefs.png": figure}, texts=texts, verdict=verdict
    )


def _simulated_only(
    network: ReactionNetwork,
    path: Path,
    reason: str,
    p: CrnValidateParameters,
    run: RunContext,
    backend: CRNBackend,
) -> Outcome:
    """A valid mass-action model that is not a Napp–Adams CRN (`reason` names the reaction
    that does not fit): there is no factor graph to reduce and no BP to compare with, so
    it is simulated as given to its steady state — concentrations in results.parquet —
    and the verdict is `cannot tell`, saying why."""
    run.begin({"crn": str(path), "tolerance": p.tolerance, "simulated_only": True})
    summary: dict[str, Any] = {
        "not_napp_adams": reason,
        "sizes": {"crn_given": {"species": len(network.species), "reactions": network.reactions}},
    }
    try:
        rest = backend.steady_state(network, p.tolerance)
        steady: list[float | None] = [float(c) for c in rest.concentrations]
        summary["steady_time"] = {"crn_given": rest.time}
        summary["rest_residual"] = {"crn_given": rest.residual}
        summary["rest_verified"] = {"crn_given": rest.verified}
    except NoSteadyStateError as error:
        steady = [None] * len(network.species)
        summary["unrested"] = {"crn_given": str(error)}
        summary["rest_residual"] = {"crn_given": error.residual}
    table = pa.table(
        {
            "species": network.species,
            "initial": [float(c) for c in network.initial],
            "steady_state": pa.array(steady, pa.float64()),
        }
    )
    check = Check(
        "crn_given vs bp",
        None,
        p.tolerances().beliefs,
        where="not a Napp–Adams CRN: no factor graph to run BP on or to reduce",
        fails="cannot tell",
    )
    return Outcome(table, summary, verdict=Verdict.judge([check]))


def _ssa(volume: float, seed: int) -> CRNBackend:
    """crn.ssa at `volume`, averaging 200 time units after a burn-in of 20 (the noise check)."""
    options = {"volume": volume, "seed": seed, "average": 200.0, "burn_in": 20.0}
    backend = create_backend("crn.ssa", options)
    assert isinstance(backend, CRNBackend)
    return backend
