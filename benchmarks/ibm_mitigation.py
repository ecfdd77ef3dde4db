"""What error mitigation buys on IBM device snapshots: Grover's success probability.

The shipped 3-qubit Grover search (grover3.qasm) has an exact success probability (Aer's
state vector). On `quantum.ibm_fake` (the snapshot's calibrated noise, runtime local
mode) it is measured four ways: the fraction of sampler shots giving the marked string,
and the estimator's value of the projector onto it, |m⟩⟨m| = Π_q (I ± Z_q)/2, at
resilience level 0 (none), 1 (TREX readout mitigation) and 2 (TREX + zero-noise
extrapolation), computed by the runtime's client-side Estimator and qiskit-mitigation.
Each figure is the mean over --seeds seeds ± their standard deviation; "error" is the mean
distance to the exact value and the anchor is the unmitigated estimator: error ratio =
error at level 0 / error of the row.

    python benchmarks/ibm_mitigation.py [--devices fake_manila,fake_brisbane] [--docs]

fake_brisbane (127 qubits) is simulated with matrix-product states for the client-side
Estimator (its programs span every device qubit): minutes per row.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from publish import published
from qiskit.quantum_info import SparsePauliOp
from timing import arguments

from substrates.backends.registry import create_backend
from substrates.datasets.quantum.circuit_files import example_path, load_circuits

SEEDS = 3
"""Seeds 1 … SEEDS of the simulator and the transpiler: a seed also picks the layout, so
the spread is the device's (its qubits differ in noise), not only the shots'."""
PRECISION = 0.01
SHOTS = 10_000


def projector(bitstring: str) -> SparsePauliOp:
    """|b⟩⟨b| as a Pauli sum (Qiskit order: the rightmost character is qubit 0)."""
    terms = []
    for mask in itertools.product((0, 1), repeat=len(bitstring)):
        label = "".join("Z" if m else "I" for m in mask)
        sign = (-1) ** sum(m and b == "1" for m, b in zip(mask, bitstring, strict=True))
        terms.append((label, sign / 2 ** len(bitstring)))
    return SparsePauliOp.from_list(terms).simplify()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="fake_manila", help="comma-separated snapshots")
    parser.add_argument("--seeds", type=int, default=SEEDS, help="how many seeds")
    args = arguments(parser, seeds=1)
    warnings.filterwarnings("ignore", category=UserWarning)  # ZNE's fit and local mode's notes
    seeds = tuple(range(1, args.seeds + 1))
    (circuit,) = load_circuits(example_path())
    (exact,) = create_backend("quantum.aer", {}).probabilities([circuit])
    marked = max(exact, key=exact.__getitem__)
    ideal = exact[marked]
    observable = projector(marked)
    print(
        f"grover3, marked {marked}: exact success probability {ideal:.4f}; "
        f"{len(seeds)} seeds, precision {PRECISION}, {SHOTS} sampler shots\n"
    )
    print("| device | measured by | success probability | error | error ratio | wall / seed |")
    print("|---|---|---|---|---|---|")
    for device in args.devices.split(","):
        rows: list[tuple[str, list[float], float]] = []
        backend = create_backend("quantum.ibm_fake", {"device": device})
        start = time.perf_counter()
        shots = [
            backend.sample([circuit], shots=SHOTS, seed=s)[0].counts.get(marked, 0) / SHOTS
            for s in seeds
        ]
        rows.append(("sampler counts", shots, time.perf_counter() - start))
        for level, label in [
            (0, "estimator, level 0"),
            (1, "estimator, level 1 (TREX)"),
            (2, "estimator, level 2 (TREX + ZNE)"),
        ]:
            backend = create_backend(
                "quantum.ibm_fake", {"device": device, "resilience_level": level}
            )
            start = time.perf_counter()
            values = [
                float(backend.estimate([circuit], [observable], precision=PRECISION, seed=s)[0])
                for s in seeds
            ]
            rows.append((label, values, time.perf_counter() - start))
        anchor = float(np.mean([abs(v - ideal) for v in rows[1][1]]))
        for label, values, wall in rows:
            error = float(np.mean([abs(v - ideal) for v in values]))
            per_seed = wall / len(seeds)
            print(
                f"| {device} | {label} | {np.mean(values):.4f} ± {np.std(values):.4f} "
                f"| {error:.4f} | {anchor / error:.1f}x | {per_seed:.1f} s |"
            )


if __name__ == "__main__":
    with published("ibm_mitigation"):
        main()
