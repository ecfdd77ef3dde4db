"""`substrates run estimate` and `substrates jobs collect` for it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ...backends.errors import CapabilityError, SubstratesError
from ...datasets.quantum.circuit_files import example_path, load_circuits, save_qpy
from ...models.estimate import estimate, observable_pairs, tabulate
from .folder import RunFolder
from .journal import JobLog, pending
from .plots import close_figure, estimates_figure
from .provenance import now, provenance, recording_failure
from .sample_run import CIRCUITS_FILE, quantum_backend, recorded_backend


def run_estimate(
    *,
    hardware: str | Path,
    circuit: str | Path | None,
    observables: tuple[str, ...],
    precision: float,
    seed: int | None,
    max_file_qubits: int,
    out: str | Path,
) -> RunFolder:
    """Estimate each Pauli observable on each circuit of `circuit` (default: the shipped
    grover3.qasm; observables default to Z on every qubit) on the configured backend;
    returns the run folder. Nothing is written until the config, the circuits, the
    observables and the precision are valid; a hardware job is announced (logger
    `substrates`) with how to collect it."""
    circuit_file = circuit or example_path()
    resolved, backend = quantum_backend(hardware)
    circuits = load_circuits(circuit_file, max_qubits=max_file_qubits)
    pairs = observable_pairs(circuits, observables)
    if precision == 0 and not backend.capabilities.exact:
        raise CapabilityError(
            f"{backend.name} gives no exact expectation values; pass --precision with a "
            "target standard error (e.g. 0.01)"
        )
    backend.validate(circuits, exact=precision == 0)
    folder = RunFolder.create(out, "estimate")
    names = [c.name for c in circuits]
    parameters = {
        "circuit_file": str(circuit_file),
        "circuits": names,
        "pairs": [list(pair) for pair in pairs],
        "precision": precision,
        "seed": seed,
    }
    record = provenance("estimate", resolved, backend, parameters)
    folder.write_json("provenance.json", record)
    save_qpy(folder.file(CIRCUITS_FILE), circuits)
    start = time.perf_counter()
    journal = JobLog(folder, announce=True)
    with recording_failure(folder, record), backend.session():
        values = estimate(backend, circuits, pairs, precision=precision, seed=seed, journal=journal)
    job_id = journal.jobs[-1]["job_id"] if journal.jobs else None
    table = tabulate(names, pairs, values, precision, job_id)
    _finish(folder, record, table, wall_time_s=time.perf_counter() - start)
    return folder


def collect_estimate(run_dir: str | Path) -> tuple[RunFolder, bool]:
    """Finish an estimate run whose estimator job was submitted earlier, fetching its
    values by job id; nothing is resubmitted. Returns the folder and whether anything had
    to be collected."""
    found = pending(run_dir)
    if found is None:
        return RunFolder.existing(run_dir), False
    folder, record, jobs = found
    backend = recorded_backend(folder, record)
    start = time.perf_counter()
    values = np.concatenate([backend.collect_estimates(job["job_id"]) for job in jobs])
    parameters = record["parameters"]
    pairs = [(int(i), str(label)) for i, label in parameters["pairs"]]
    if len(values) != len(pairs):
        raise SubstratesError(
            f"{folder.path}: its jobs hold {len(values)} values for {len(pairs)} observables"
        )
    table = tabulate(
        parameters["circuits"], pairs, values, parameters["precision"], jobs[-1]["job_id"]
    )
    record["collected_at"] = now()
    _finish(folder, record, table, wall_time_s=time.perf_counter() - start)
    return folder, True


def _finish(folder: RunFolder, record: dict[str, Any], table: pa.Table, wall_time_s: float) -> None:
    folder.write_table("results.parquet", table)
    figure = estimates_figure(table, f"estimate on {record['backend']['backend']}")
    folder.save_figure("estimates.png", figure)
    close_figure(figure)
    summary = {
        "circuits": len(set(table["circuit"].to_pylist())),
        "values": table.num_rows,
        "precision": record["parameters"]["precision"],
    }
    record.update(
        status="complete", finished_at=now(), wall_time_s=round(wall_time_s, 6), summary=summary
    )
    folder.write_json("provenance.json", record)
