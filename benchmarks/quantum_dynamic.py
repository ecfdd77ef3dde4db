"""Dynamic circuits sampled: PennyLane's tree traversal (what `quantum.pennylane` runs) and
its one-shot method (what it ran before) against Aer, on the same circuits, in one run.

Circuits: the shipped dynamic cases PennyLane can express (mid-circuit measurement, reset,
feed-forward, else branches, nested conditionals) and random dynamic circuits from
`substrates.testing.dynamic_circuits.random_dynamic_circuit`, the first seeds whose
circuits PennyLane can express (no measurement inside a conditional). Each set is sampled
in one `sample` call per backend; the anchor is `quantum.aer` (ratio = time / Aer's time,
measured in this run). Correctness beside speed: the total-variation distance of each
backend's counts from the exact distribution (Aer's branch-exact probabilities), as the
mean over circuits, beside the distance expected from sampling noise alone.

    python benchmarks/quantum_dynamic.py --docs
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pennylane as qml
from publish import published
from qiskit import QuantumCircuit
from timing import arguments

from substrates.backends.quantum.to_pennylane import apply_circuit
from substrates.backends.registry import create_backend
from substrates.errors import CapabilityError
from substrates.testing.dynamic_circuits import DYNAMIC_CASES, random_dynamic_circuit

SEED = 7


def expressible(circuit: QuantumCircuit) -> bool:
    """Whether our converter can give PennyLane this circuit."""
    try:
        qml.tape.make_qscript(apply_circuit)(circuit)
    except CapabilityError:
        return False
    return True


def circuit_sets(random_count: int) -> dict[str, list[QuantumCircuit]]:
    shipped = [make() for make in DYNAMIC_CASES.values()]
    randoms: list[QuantumCircuit] = []
    seed = 0
    while len(randoms) < random_count:
        circuit = random_dynamic_circuit(seed)
        if expressible(circuit):
            randoms.append(circuit)
        seed += 1
    return {
        "shipped cases": [c for c in shipped if expressible(c)],
        "random dynamic": randoms,
    }


def one_shot(device: str) -> Callable[[list[QuantumCircuit], int], None]:
    """PennyLane's one-shot method on `device`: the circuit simulated once per shot."""

    def run(circuits: list[QuantumCircuit], shots: int) -> None:
        for circuit in circuits:

            def program(circuit: QuantumCircuit = circuit) -> object:
                measured = apply_circuit(circuit)
                return qml.sample(op=[measured[c] for c in sorted(measured)])

            dev = qml.device(device, wires=circuit.num_qubits, seed=SEED)
            qml.QNode(program, dev, mcm_method="one-shot", shots=shots)()

    return run


def total_variation(counts: dict[str, int], exact: dict[str, float], shots: int) -> float:
    keys = set(counts) | set(exact)
    return 0.5 * sum(abs(counts.get(k, 0) / shots - exact.get(k, 0.0)) for k in keys)


def noise_floor(exact: dict[str, float], shots: int, draws: int = 200) -> float:
    """Mean total-variation distance of `shots` exact multinomial draws from `exact`."""
    rng = np.random.default_rng(0)
    keys = list(exact)
    p = np.array([exact[k] for k in keys])
    p = p / p.sum()
    samples = rng.multinomial(shots, p, size=draws) / shots
    return float(np.mean(0.5 * np.abs(samples - p).sum(axis=1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, nargs="+", default=[4000, 20000])
    parser.add_argument("--random", type=int, default=15, help="random dynamic circuits")
    parser.add_argument(
        "--one-shot-below",
        type=int,
        default=5000,
        help="time the one-shot method only at shot counts below this (it is slow)",
    )
    args = arguments(parser, shots=[200], random=2)
    sets = circuit_sets(args.random)
    aer = create_backend("quantum.aer", {})
    backends = {
        "Aer": aer,
        "default.qubit, tree traversal": create_backend(
            "quantum.pennylane", {"device": "default.qubit"}
        ),
        "lightning.qubit, tree traversal": create_backend(
            "quantum.pennylane", {"device": "lightning.qubit"}
        ),
    }
    print(
        "| circuits | shots | sampled by | wall | vs Aer | mean TV from exact | sampling-noise TV |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, circuits in sets.items():
        exact = aer.probabilities(circuits)
        described = f"{label} ({len(circuits)})"
        for shots in args.shots:
            floor = np.mean([noise_floor(e, shots) for e in exact])
            aer_wall = None
            for name, backend in backends.items():
                start = time.perf_counter()
                results = backend.sample(circuits, shots=shots, seed=SEED)
                wall = time.perf_counter() - start
                aer_wall = aer_wall or wall
                tv = np.mean(
                    [
                        total_variation(r.counts, e, shots)
                        for r, e in zip(results, exact, strict=True)
                    ]
                )
                print(
                    f"| {described} | {shots:,} | {name} | {wall:.2f} s "
                    f"| {wall / aer_wall:.2f}x | {tv:.4f} | {floor:.4f} |"
                )
            if shots < args.one_shot_below:
                for device in ("default.qubit", "lightning.qubit"):
                    start = time.perf_counter()
                    one_shot(device)(circuits, shots)
                    wall = time.perf_counter() - start
                    print(
                        f"| {described} | {shots:,} | {device}, one-shot (before) "
                        f"| {wall:.2f} s | {wall / aer_wall:.2f}x | – | – |"
                    )


if __name__ == "__main__":
    with published("quantum_dynamic"):
        main()
