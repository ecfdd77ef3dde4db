"""`substrates run estimate`, and `substrates jobs collect` for it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ...backends.quantum.base import QuantumBackend
from ...datasets.quantum.circuit_files import example_path, load_circuits, save_qpy
from ...errors import CapabilityError, SubstratesError
from ...models.estimate import estimate, observable_pairs, tabulate
from ..runs.plots import estimates_figure
from .estimate import EstimateParameters
from .lifecycle import Outcome, RunContext
from .sample_run import CIRCUITS_FILE


def run_estimate(p: EstimateParameters, run: RunContext) -> Outcome:
    """Estimate each Pauli observable on each circuit of `p.circuit` (default: the shipped
    grover3.qasm; observables default to Z on every qubit) in one estimator call. Nothing
    is written until the circuits, the observables and the precision are valid."""
    backend = run.backend("hardware", QuantumBackend)
    circuit_file = p.circuit or example_path()
    circuits = load_circuits(circuit_file, max_qubits=p.max_file_qubits, budget=p.budget())
    pairs = observable_pairs(circuits, p.observables)
    if p.precision == 0 and not backend.capabilities.exact:
        raise CapabilityError(
            f"{backend.name} gives no exact expectation values; pass --precision with a "
            "target standard error (e.g. 0.01)"
        )
    backend.validate(circuits, exact=p.precision == 0)
    names = [c.name for c in circuits]
    folder = run.begin(
        {"circuit_file": str(circuit_file), "circuits": names, "pairs": [list(x) for x in pairs]}
        | {"precision": p.precision, "seed": p.seed}
    )
    save_qpy(folder.file(CIRCUITS_FILE), circuits)
    journal = run.journal(announce=True)
    with backend.session():
        values = estimate(
            backend, circuits, pairs, precision=p.precision, seed=p.seed, journal=journal
        )
    job_id = journal.jobs[-1]["job_id"] if journal.jobs else None
    return outcome(tabulate(names, pairs, values, p.precision, job_id), run.record)


def collect_estimate(run: RunContext, jobs: list[dict[str, Any]]) -> Outcome:
    """The outcome of an interrupted estimate run, from its estimator job's values."""
    backend = run.backend("hardware", QuantumBackend)
    journal = run.journal(recorded=jobs)
    values = np.concatenate(
        [backend.collect_estimates(job["job_id"], journal=journal) for job in jobs]
    )
    parameters = run.record["parameters"]
    pairs = [(int(i), str(label)) for i, label in parameters["pairs"]]
    if len(values) != len(pairs):
        raise SubstratesError(
            f"its jobs hold {len(values)} values for {len(pairs)} observables", path=run.folder.path
        )
    precision, job_id = parameters["precision"], jobs[-1]["job_id"]
    return outcome(tabulate(parameters["circuits"], pairs, values, precision, job_id), run.record)


def outcome(table: pa.Table, record: dict[str, Any]) -> Outcome:
    """The values table, its plot and the summary."""
    circuits = len(set(table["circuit"].to_pylist()))
    summary = {
        "circuits": circuits,
        "values": table.num_rows,
        "precision": record["parameters"]["precision"],
    }
    figure = estimates_figure(table, f"estimate on {record['backend']['backend']}")
    return Outcome(table, summary, figures={"estimates.png": figure})
