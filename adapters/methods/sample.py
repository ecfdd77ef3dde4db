"""`sample`: measure the circuits of a circuit file on a quantum backend."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...datasets.quantum.circuit_files import MAX_QUBITS
from ..runs.folder import RunFolder
from ..runs.run import Run
from .method import SEED_MAX, Method, MethodParameters, option


class SampleParameters(MethodParameters):
    """Parameters of `substrates run sample`."""

    hardware: str = option(
        "aer_statevector",
        "hardware config file or shipped config name",
        metavar="CONFIG",
        input="config",
    )
    circuit: str | None = option(
        None, "circuit file: QASM 3, QASM 2 or QPY (default: the shipped grover3.qasm)",
        metavar="FILE", input="file",
    )  # fmt: skip
    shots: int = option(4096, "shots per circuit")
    seed: int | None = option(None, "simulator and transpiler seed", ge=0, le=SEED_MAX)
    exact: bool = option(
        True, "exact probabilities beside the counts, on backends that compute them; "
        "--no-exact skips them", flags=("--no-exact",),
    )  # fmt: skip
    max_file_qubits: int = option(
        MAX_QUBITS, "refuse a circuit file declaring more qubits (or bits) than this, before "
        "parsing it", ge=1,
    )  # fmt: skip


def _run() -> Callable[..., RunFolder]:
    from ..runs.sample_run import run_sample

    return run_sample


def _resume(parameters: SampleParameters, earlier: RunFolder, out: Path) -> RunFolder:
    from ..runs.sample_run import collect_sample

    return collect_sample(earlier.path)[0]


def report(run: Run) -> str:
    """The three most frequent outcomes of each circuit, and where the files are."""
    table = run.results.to_pylist()
    lines = []
    for name in dict.fromkeys(row["circuit"] for row in table):
        rows = [r for r in table if r["circuit"] == name][:3]
        shown = ", ".join(f"{r['bitstring']}: {r['count']}/{r['shots']}" for r in rows)
        lines.append(f"{name}: {shown}")
    return "\n".join([*lines, f"run folder: {run.path}"])


METHOD = Method(
    name="sample",
    help="measure the circuits of a QASM 3/2 or QPY file and store the counts",
    description=(
        "Measure every circuit of a QASM 3, QASM 2 or QPY file on the configured backend. "
        "Without arguments: a 3-qubit Grover search shipped with the package, on the "
        "Aer simulator."
    ),
    parameters=SampleParameters,
    run=_run,
    report=report,
    resume=_resume,
    sweep_rows=lambda run: run.results.to_pylist(),
)
