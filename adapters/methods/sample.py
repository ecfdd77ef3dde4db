"""`sample`: measure the circuits of a circuit file on a quantum backend."""

from __future__ import annotations

from ...backends.quantum.base import QuantumBackend
from ..runs.run import Run
from .circuit_parameters import CircuitFileParameters
from .method import Method, implementation, option
from .summary import Entry


class SampleParameters(CircuitFileParameters):
    """Parameters of `substrates run sample`."""

    shots: int = option(4096, "shots per circuit")
    exact: bool = option(
        True,
        "exact probabilities beside the counts, on backends that compute them; "
        "--no-exact skips them",
        flags=("--no-exact",),
    )


def report(run: Run) -> str:
    """The three most frequent outcomes of each circuit, and where the files are."""
    table = run.results.to_pylist()
    lines = []
    for name in dict.fromkeys(row["circuit"] for row in table):
        rows = [r for r in table if r["circuit"] == name][:3]
        shown = ", ".join(f"{r['bitstring']}: {r['count']}/{r['shots']}" for r in rows)
        lines.append(f"{name}: {shown}")
    return "\n".join([*lines, f"run folder: {run.path}"])


SUMMARY = (
    Entry("circuits", "circuits sampled", format="d"),
    Entry("shots", "shots per circuit", format="d"),
    Entry("outcomes", "distinct outcomes recorded", format="d"),
)


METHOD = Method(
    name="sample",
    help="measure the circuits of a QASM 3/2 or QPY file and store the counts",
    description=(
        "Measure every circuit of a QASM 3, QASM 2 or QPY file on the configured backend. "
        "Without arguments: a 3-qubit Grover search shipped with the package, on the "
        "Aer simulator."
    ),
    summary=SUMMARY,
    parameters=SampleParameters,
    run=implementation(".sample_run", "run_sample"),
    backends={"hardware": QuantumBackend},
    report=report,
    collect=implementation(".sample_run", "collect_sample"),
    sweep_rows=lambda run: run.results.to_pylist(),
)
