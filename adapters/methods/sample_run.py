"""`substrates run sample`, and `substrates jobs collect` for it."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ...backends.quantum.base import QuantumBackend
from ...datasets.quantum.circuit_files import example_path, load_circuits, save_qpy
from ...errors import CapabilityError, OptionError
from ...models.sample import sample, tabulate
from ..runs.plots import counts_figure
from .lifecycle import Outcome, RunContext
from .sample import SampleParameters

CIRCUITS_FILE = "circuits.qpy"
"""The circuits as run, in QPY, beside the results."""


def run_sample(p: SampleParameters, run: RunContext) -> Outcome:
    """Sample every circuit of `p.circuit` (default: the shipped grover3.qasm) on the
    `hardware` backend. Nothing is written until the circuits and the request are valid;
    each submitted hardware job is announced (logger `substrates`) with how to collect it."""
    backend = run.backend("hardware", QuantumBackend)
    circuit_file = p.circuit or example_path()
    circuits = load_circuits(circuit_file, max_qubits=p.max_file_qubits, budget=p.budget())
    backend.validate(circuits, shots=p.shots)
    if p.exact and backend.capabilities.exact:
        try:
            backend.validate(circuits, exact=True)
        except CapabilityError as err:
            message = f"{err} (turn exact off to record counts only)"
            raise OptionError(message, option="exact") from None
    names = [c.name for c in circuits]
    parameters = {"circuit_file": str(circuit_file), "circuits": names, "shots": p.shots}
    folder = run.begin({**parameters, "seed": p.seed, "exact": p.exact})
    save_qpy(folder.file(CIRCUITS_FILE), circuits)
    with backend.session():  # one IBM Batch for the run
        journal = run.journal(announce=True)
        table = sample(
            backend, circuits, shots=p.shots, seed=p.seed, exact=p.exact, journal=journal
        )
    return outcome(table, run.record)


def collect_sample(run: RunContext, jobs: list[dict[str, Any]]) -> Outcome:
    """The outcome of an interrupted sample run, from the results of its recorded jobs."""
    backend = run.backend("hardware", QuantumBackend)
    journal = run.journal(recorded=jobs)
    parameters = run.record["parameters"]
    results = [
        result
        for job in jobs
        for result in backend.collect(job["job_id"], journal, shots=parameters["shots"])
    ]
    return outcome(tabulate(parameters["circuits"], results, parameters["shots"]), run.record)


def outcome(table: pa.Table, record: dict[str, Any]) -> Outcome:
    """The counts table, its plot and the summary."""
    circuits = len(set(table["circuit"].to_pylist()))
    summary = {
        "circuits": circuits,
        "shots": record["parameters"]["shots"],
        "outcomes": table.num_rows,
    }
    figure = counts_figure(table, f"sample on {record['backend']['backend']}")
    return Outcome(table, summary, figures={"counts.png": figure})
