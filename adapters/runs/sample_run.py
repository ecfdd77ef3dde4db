"""`substrates run sample` and `substrates jobs collect` for it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from ...backends.errors import CapabilityError, SubstratesError
from ...backends.quantum.base import QuantumBackend
from ...backends.registry import get_backend_class
from ...datasets.quantum.circuit_files import example_path, load_circuits, save_qpy
from ...models.sample import sample, tabulate
from ..config.build import backend_from_config
from ..config.errors import ConfigError
from ..config.load import load_config
from .folder import RunFolder
from .journal import JobLog, pending
from .plots import close_figure, counts_figure
from .provenance import now, provenance, recording_failure

CIRCUITS_FILE = "circuits.qpy"


def quantum_backend(hardware: str | Path) -> tuple[Any, QuantumBackend]:
    """The resolved config and its backend, which must be a quantum one."""
    resolved = load_config(hardware)
    backend = backend_from_config(resolved)
    if not isinstance(backend, QuantumBackend):
        raise ConfigError(resolved.path, "substrate", "the sample method needs a quantum backend")
    return resolved, backend


def run_sample(
    *,
    hardware: str | Path,
    circuit: str | Path | None,
    shots: int,
    seed: int | None,
    exact: bool,
    max_file_qubits: int,
    out: str | Path,
) -> RunFolder:
    """Sample every circuit of `circuit` (default: the shipped grover3.qasm) on the
    configured backend; returns the run folder. Nothing is written until the config, the
    circuits and the request are valid; each submitted hardware job is announced (logger
    `substrates`) with how to collect it."""
    circuit_file = circuit or example_path()
    resolved, backend = quantum_backend(hardware)
    circuits = load_circuits(circuit_file, max_qubits=max_file_qubits)
    backend.validate(circuits, shots=shots)
    if exact and backend.capabilities.exact:
        try:
            backend.validate(circuits, exact=True)
        except CapabilityError as err:
            raise CapabilityError(f"{err} (or pass --no-exact to record counts only)") from None
    folder = RunFolder.create(out, "sample")
    parameters = {
        "circuit_file": str(circuit_file),
        "circuits": [c.name for c in circuits],
        "shots": shots,
        "seed": seed,
        "exact": exact,
    }
    record = provenance("sample", resolved, backend, parameters)
    folder.write_json("provenance.json", record)
    save_qpy(folder.file(CIRCUITS_FILE), circuits)
    start = time.perf_counter()
    with recording_failure(folder, record), backend.session():  # one IBM Batch for the run
        table = sample(
            backend,
            circuits,
            shots=shots,
            seed=seed,
            exact=exact,
            journal=JobLog(folder, announce=True),
        )
    _finish(folder, record, table, wall_time_s=time.perf_counter() - start)
    return folder


def recorded_backend(folder: RunFolder, record: dict[str, Any]) -> QuantumBackend:
    """The quantum backend a run recorded in its provenance, made again."""
    backend = get_backend_class(record["backend"]["backend"]).from_dict(record["backend"])
    if not isinstance(backend, QuantumBackend):
        raise SubstratesError(f"{folder.path}: the run's backend is not a quantum one")
    return backend


def collect_sample(run_dir: str | Path) -> tuple[RunFolder, bool]:
    """Finish a sample run whose jobs were submitted earlier, fetching results by job id.

    Nothing is resubmitted. Returns the folder and whether anything had to be collected.
    """
    found = pending(run_dir)
    if found is None:
        return RunFolder.existing(run_dir), False
    folder, record, jobs = found
    backend = recorded_backend(folder, record)
    start = time.perf_counter()
    results = [result for job in jobs for result in backend.collect(job["job_id"])]
    parameters = record["parameters"]
    table = tabulate(parameters["circuits"], results, parameters["shots"])
    record["collected_at"] = now()
    _finish(folder, record, table, wall_time_s=time.perf_counter() - start)
    return folder, True


def _finish(folder: RunFolder, record: dict[str, Any], table: pa.Table, wall_time_s: float) -> None:
    folder.write_table("results.parquet", table)
    backend = record["backend"]["backend"]
    figure = counts_figure(table, f"sample on {backend}")
    folder.save_figure("counts.png", figure)
    close_figure(figure)
    summary = {
        "circuits": len(set(table["circuit"].to_pylist())),
        "shots": record["parameters"]["shots"],
        "outcomes": table.num_rows,
    }
    record.update(
        status="complete", finished_at=now(), wall_time_s=round(wall_time_s, 6), summary=summary
    )
    folder.write_json("provenance.json", record)
