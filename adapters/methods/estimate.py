"""`estimate`: expectation values of Pauli observables on the circuits of a circuit file."""

from __future__ import annotations

from pydantic import field_validator

from ...backends.quantum.base import QuantumBackend
from ..runs.run import Run
from .circuit_parameters import CircuitFileParameters
from .method import Method, implementation, option
from .summary import Entry


class EstimateParameters(CircuitFileParameters):
    """Parameters of `substrates run estimate`."""

    observables: tuple[str, ...] = option(
        (),
        "comma-separated Pauli labels, qubit 0 rightmost (e.g. ZZI,XXX); each is "
        "estimated on every circuit of its width (default: Z on each qubit)",
        metavar="LABELS",
    )
    precision: float = option(
        0.0, "target standard error of each value; 0: exact values (exact backends only)", ge=0
    )

    @field_validator("observables", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(label.strip() for label in value.split(",") if label.strip())
        return value


def report(run: Run) -> str:
    """Each circuit's values, observable by observable, and where the files are."""
    table = run.results.to_pylist()
    lines = []
    for name in dict.fromkeys(row["circuit"] for row in table):
        rows = [r for r in table if r["circuit"] == name]
        shown = ", ".join(f"<{r['observable']}> = {r['value']:+.4f}" for r in rows[:8])
        more = f" (+{len(rows) - 8} more)" if len(rows) > 8 else ""
        lines.append(f"{name}: {shown}{more}")
    precision = table[0]["precision"] if table else 0.0
    lines.append("exact values" if precision == 0 else f"target standard error {precision:g}")
    return "\n".join([*lines, f"run folder: {run.path}"])


SUMMARY = (
    Entry("circuits", "circuits estimated on", format="d"),
    Entry("values", "expectation values estimated", format="d"),
    Entry("precision", "target standard error (0: exact)"),
)


METHOD = Method(
    name="estimate",
    help="expectation values of Pauli observables on the circuits of a QASM 3/2 or QPY file",
    description=(
        "Estimate Pauli observables on every circuit of a QASM 3, QASM 2 or QPY file "
        "(final measurements dropped) on the configured backend, in one estimator call "
        "(one job on IBM hardware, recorded before waiting: `substrates jobs collect` "
        "finishes an interrupted run). Without "
        "arguments: Z on each qubit of the shipped 3-qubit Grover search, exactly, on Aer."
    ),
    epilog=(
        "Error mitigation is a hardware config's business: resilience_level, "
        "measure_mitigation, twirling and dynamical_decoupling of quantum.ibm (applied by "
        "IBM's servers) and quantum.ibm_fake (applied on this machine)."
    ),
    summary=SUMMARY,
    parameters=EstimateParameters,
    run=implementation(".estimate_run", "run_estimate"),
    backends={"hardware": QuantumBackend},
    report=report,
    collect=implementation(".estimate_run", "collect_estimate"),
    sweep_rows=lambda run: run.results.to_pylist(),
)
