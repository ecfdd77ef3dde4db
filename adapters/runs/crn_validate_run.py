"""`substrates run crn-validate`: reduce a factor graph, simulate the original and the reduced
Napp–Adams CRN on the configured backend, and compare their beliefs with BP and exact."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from ...backends.crn.base import CRNBackend
from ...backends.errors import SubstratesError
from ...datasets.crn.bif import read_bif
from ...datasets.crn.factor_graph import FactorGraph, FactorGraphError
from ...datasets.crn.libdai_fg import read_fg
from ...datasets.crn.tokens import MAX_TABLE_ENTRIES
from ...datasets.crn.uai import read_uai
from ...datasets.crn.xmlbif import read_xmlbif
from ...models.crn.napp_adams import CompiledGraph
from ...models.crn.recovery import RecoveryError, recover
from ...models.crn.reductions import MOVES
from ...models.crn.validate import Analyses, Validation, preflight, validate_reduction
from ..config import ConfigError, backend_from_config, load_config
from .folder import RunFolder
from .provenance import now, provenance, recording_failure


def example_graph() -> Path:
    """The Asia network shipped with the package (UAI BAYES)."""
    from importlib.resources import files

    return Path(str(files("substrates.datasets.crn") / "examples" / "asia.uai"))


GRAPH_READERS = {
    ".fg": read_fg,
    ".uai": read_uai,
    ".bif": read_bif,
    ".bif.gz": read_bif,
    ".xml": read_xmlbif,
    ".xmlbif": read_xmlbif,
}
"""File endings (case-insensitive) and their readers."""


def read_graph(path: str | Path, max_table_entries: int = MAX_TABLE_ENTRIES) -> FactorGraph:
    """A .fg (libDAI), .uai, .bif(.gz) or .xml/.xmlbif (XMLBIF) file; a factor of more
    than max_table_entries entries is refused before it is allocated."""
    path = Path(path)
    name = path.name.lower()
    ending = next(
        (e for e in sorted(GRAPH_READERS, key=len, reverse=True) if name.endswith(e)), None
    )
    if ending is None:
        raise SubstratesError(
            f"{path}: unknown graph format; use .fg (libDAI), .uai (UAI), "
            ".bif/.bif.gz (BIF) or .xml/.xmlbif (XMLBIF)"
        )
    try:
        return GRAPH_READERS[ending](path, max_table_entries)
    except FactorGraphError as err:
        raise SubstratesError(str(err)) from None


def read_crn(path: str | Path) -> tuple[FactorGraph, CompiledGraph]:
    """The factor graph recovered from a Napp–Adams CRN in SBML, and the CRN as given."""
    from ...datasets.crn.sbml import read_sbml

    try:
        recovered = recover(read_sbml(path))
    except (FactorGraphError, RecoveryError) as err:
        raise SubstratesError(f"{path}: {err}") from None
    return recovered.graph, recovered.compiled


def parse_moves(text: str) -> tuple[str, ...]:
    if text == "all":
        return MOVES
    if text == "none":
        return ()
    moves = tuple(m.strip() for m in text.split(",") if m.strip())
    unknown = sorted(set(moves) - set(MOVES))
    if unknown:
        raise SubstratesError(
            f"--reduce: unknown {unknown}; allowed: all, none, {', '.join(MOVES)}"
        )
    return moves


def parse_assignments(graph: FactorGraph, text: str) -> dict[int, int]:
    """'name=state,...' (names as in the file: labels for .fg, indices for .uai, names for
    .bif; a state by its name or its index)."""
    index = {name: i for i, name in enumerate(graph.names)}
    out: dict[int, int] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, _, state = (part.strip() for part in item.partition("="))
        if name not in index or not state:
            shown = ", ".join(graph.names[:8]) + ("…" if graph.variables > 8 else "")
            raise SubstratesError(
                f"--evidence {item!r}: expected VARIABLE=STATE; variables are {shown}"
            )
        states = graph.states[index[name]]
        if state in states:
            value = states.index(state)
        elif state.isdigit() and int(state) < len(states):
            value = int(state)
        else:
            raise SubstratesError(f"--evidence {item}: {name} has states {', '.join(states)}")
        if out.setdefault(index[name], value) != value:
            raise SubstratesError(f"--evidence names {name} twice with different states")
        out[index[name]] = value
    return out


def stochastic_simulator(volume: float, seed: int) -> CRNBackend:
    """crn.ssa at `volume`, averaging 200 time units after a burn-in of 20 (the noise check)."""
    from ...backends.registry import create_backend

    backend = create_backend(
        "crn.ssa", {"volume": volume, "seed": seed, "average": 200.0, "burn_in": 20.0}
    )
    assert isinstance(backend, CRNBackend)
    return backend


def _numbers(flag: str, text: str, low: float, high: float) -> tuple[float, ...]:
    """'a,b,…' as numbers in (low, high); 'none' or '' as none."""
    if text.strip().lower() in ("", "none"):
        return ()
    try:
        values = tuple(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise SubstratesError(f"{flag} {text!r}: expected numbers separated by commas") from None
    bad = [v for v in values if not low < v < high]
    if bad:
        raise SubstratesError(f"{flag}: {bad[0]:g} is outside ({low:g}, {high:g})")
    return values


def parse_keep(graph: FactorGraph, text: str) -> list[int]:
    index = {name: i for i, name in enumerate(graph.names)}
    names = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [n for n in names if n not in index]
    if unknown:
        raise SubstratesError(f"--keep: unknown variables {unknown}")
    return [index[n] for n in names]


def run_crn_validate(
    *,
    graph: str | Path | None,
    crn: str | Path | None,
    reduce: str,
    evidence: str,
    keep: str,
    lifted: bool,
    hardware: str | Path,
    tolerance: float,
    max_table_entries: int,
    allow_growth: bool,
    elementary: bool,
    max_reactions: int,
    perturbation: str,
    samples: int,
    starts: int,
    volumes: str,
    out: str | Path,
) -> RunFolder:
    """Validate the reductions of one `graph` (default: the shipped Asia network), or of a
    given `crn` (SBML: the chemical route, recover → reduce → recompile) simulated on the
    `hardware` config; writes results.parquet, provenance.json and both CRNs as SBML.
    `lifted`: compile the reduced graph with lifted compression."""
    graph_path, crn_path, simulator = graph, crn, hardware
    if graph_path and crn_path:
        raise SubstratesError("give --graph or --crn, not both")
    if crn_path and evidence:
        raise SubstratesError(
            "--evidence with --crn: the CRN is simulated as given; compile the evidence into "
            "it (indicator factors, which the evidence move finds)"
        )
    given: CompiledGraph | None = None
    if crn_path:
        path = Path(crn_path)
        model, given = read_crn(path)
    else:
        path = Path(graph_path) if graph_path else example_graph()
        model = read_graph(path, max_table_entries)
    moves = parse_moves(reduce)
    observed = parse_assignments(model, evidence)
    kept = parse_keep(model, keep)
    observed_kept = [model.names[v] for v in kept if v in observed]
    if observed_kept:
        raise SubstratesError(
            f"--keep {', '.join(observed_kept)}: observed in --evidence; "
            "an observed variable has no belief to compare"
        )
    analyses = Analyses(
        levels=_numbers("--perturbation", perturbation, 0.0, 1.0),
        samples=samples,
        starts=starts,
        volumes=_numbers("--volumes", volumes, 0.0, float("inf")),
        stochastic=stochastic_simulator,
    )
    reduction = preflight(
        model, moves, observed, kept, allow_growth, max_reactions, given is not None
    )
    resolved = load_config(simulator)
    backend = backend_from_config(resolved)
    if not isinstance(backend, CRNBackend):
        raise ConfigError(resolved.path, "substrate", "crn-validate needs a crn simulator")
    folder = RunFolder.create(out, "crn-validate")
    parameters = {
        "crn" if given else "graph": str(path),
        "reduce": list(moves),
        "evidence": evidence,
        "keep": keep,
        "tolerance": tolerance,
        "lifted": lifted,
        "allow_growth": allow_growth,
        "elementary": elementary,
        "max_reactions": max_reactions,
        "perturbation": list(analyses.levels),
        "samples": samples,
        "starts": starts,
        "volumes": list(analyses.volumes),
    }
    record = provenance("crn-validate", resolved, backend, parameters)
    folder.write_json("provenance.json", record)
    began = time.perf_counter()
    with recording_failure(folder, record):
        result = validate_reduction(
            model,
            backend,
            moves,
            observed,
            kept,
            tolerance,
            given,
            lifted,
            allow_growth,
            max_reactions,
            analyses,
            elementary,
            reduction,
        )
    from ...datasets.crn.sbml import to_sbml

    folder.write_table("results.parquet", _table(result))
    for label, network in result.networks.items():
        folder.write_text(f"{label}.xml", to_sbml(network, label))
    record.update(
        status="complete",
        finished_at=now(),
        wall_time_s=round(time.perf_counter() - began, 3),
        summary=summary(result),
    )
    folder.write_json("provenance.json", record)
    return folder


def summary(result: Validation) -> dict[str, Any]:
    return {
        "survivors": list(result.survivors),
        "loopy": result.loopy,
        "differences": result.differences,
        "bp_residual": result.bp_residual,
        "bp_converged": result.bp_converged,
        "conservation_error": result.conservation_error,
        "sizes": result.sizes,
        "applied": result.applied,
        "steady_time": result.steady_time,
        "steps": [[s.move, s.variable, s.species, s.reactions] for s in result.steps],
        "declined": result.declined,
        "kept": list(result.kept),
        "bp_sweeps": result.bp_sweeps,
        "robustness": result.robustness,
    }


def _table(result: Validation) -> pa.Table:
    """One row per (surviving variable, state) with every method's belief."""
    rows = []
    for position, name in enumerate(result.survivors):
        states = len(result.beliefs["bp"][position])
        for state in range(states):
            row: dict[str, Any] = {"variable": name, "state": state}
            for method, beliefs in result.beliefs.items():
                row[method] = None if beliefs is None else float(beliefs[position][state])
            rows.append(row)
    return pa.Table.from_pylist(rows)
