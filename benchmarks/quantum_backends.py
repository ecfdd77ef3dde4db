"""Quantum backends: our adapter over the raw library call, and Aer vs PennyLane devices.

For each circuit (10 random RY+CX layers; 5 Grover iterations with a multi-controlled X
oracle) at each width, sample 1024 shots and time, in this one run:
  * raw: the library called directly (AerSimulator.run; a PennyLane QNode written natively),
  * ours: `QuantumBackend.sample` on the same simulator (Qiskit circuit in, counts out).
The ratio ours/raw is the adapter's overhead (goal: at most 1.05). Best of --repeats.
The raw QNode is built once, outside the timing; our adapter builds its device per call.

    python benchmarks/quantum_backends.py --sizes 16 20 24
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pennylane as qml
from publish import published
from qiskit import QuantumCircuit
from qiskit_aer import AerSimulator
from timing import arguments
from tqdm import tqdm

from substrates.backends.registry import create_backend
from substrates.datasets.quantum.generators import layered

SHOTS = 1024
LAYERS = 10
GROVER_ITERATIONS = 5
SEED = 1


def grover5(n: int) -> QuantumCircuit:
    """5 Grover iterations marking |1…1>, as explicit H, X and MCX gates."""
    circuit = QuantumCircuit(n, name=f"grover5_{n}")
    circuit.h(range(n))
    for _ in range(GROVER_ITERATIONS):
        circuit.h(n - 1)
        circuit.mcx(list(range(n - 1)), n - 1)
        circuit.h(n - 1)
        circuit.h(range(n))
        circuit.x(range(n))
        circuit.h(n - 1)
        circuit.mcx(list(range(n - 1)), n - 1)
        circuit.h(n - 1)
        circuit.x(range(n))
        circuit.h(range(n))
    circuit.measure_all()
    return circuit


def native_pennylane(kind: str, n: int) -> Callable[[], None]:
    """The same circuit written directly in PennyLane, as a user of PennyLane would."""
    angles = np.random.default_rng(0).uniform(0, 2 * np.pi, size=(LAYERS, n))
    wires = list(range(n))

    def layered_ops() -> None:
        for row in angles:
            for q in wires:
                qml.RY(float(row[q]), wires=q)
            for q in wires[:-1]:
                qml.CNOT(wires=[q, q + 1])

    def grover_ops() -> None:
        for q in wires:
            qml.Hadamard(q)
        for _ in range(GROVER_ITERATIONS):
            for flip in (False, True):
                if flip:
                    for q in wires:
                        qml.Hadamard(q)
                        qml.PauliX(q)
                qml.Hadamard(n - 1)
                qml.MultiControlledX(wires=wires)
                qml.Hadamard(n - 1)
                if flip:
                    for q in wires:
                        qml.PauliX(q)
                        qml.Hadamard(q)

    body = layered_ops if kind == "layered" else grover_ops
    return body


def best_time(call: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def time_case(kind: str, n: int, repeats: int, skip_default_above: int) -> dict:
    """Raw and adapter times of one circuit on Aer, lightning.qubit and default.qubit."""
    circuit = layered(n, LAYERS, seed=0) if kind == "layered" else grover5(n)
    row: dict = {"circuit": kind, "qubits": n}

    simulator = AerSimulator(method="statevector")
    aer = create_backend("quantum.aer", {"method": "statevector"})
    raw = best_time(
        lambda: simulator.run(circuit, shots=SHOTS, seed_simulator=SEED).result().get_counts(),
        repeats,
    )
    ours = best_time(lambda: aer.sample([circuit], shots=SHOTS, seed=SEED), repeats)
    row["aer"] = (raw, ours)

    for device in ("lightning.qubit", "default.qubit"):
        if device == "default.qubit" and n > skip_default_above:
            row[device] = (float("nan"), float("nan"))
            continue
        ops = native_pennylane(kind, n)

        def program(ops: Callable[[], None] = ops) -> object:
            ops()
            return qml.counts(wires=range(n))

        qnode = qml.set_shots(qml.QNode(program, qml.device(device, wires=n, seed=SEED)), SHOTS)
        backend = create_backend("quantum.pennylane", {"device": device})
        raw = best_time(qnode, repeats)
        ours = best_time(lambda b=backend: b.sample([circuit], shots=SHOTS, seed=SEED), repeats)
        row[device] = (raw, ours)
    return row


def measure(sizes: list[int], repeats: int, skip_default_above: int) -> list[dict]:
    cases = [(kind, n) for n in sizes for kind in ("layered", "grover5")]
    return [
        time_case(kind, n, repeats, skip_default_above)
        for kind, n in tqdm(cases, desc="circuits", unit="circuit")
    ]


def markdown(rows: list[dict]) -> str:
    lines = [
        "| circuit | qubits | Aer raw / ours (ratio) | lightning.qubit raw / ours (ratio) "
        "| default.qubit raw / ours (ratio) | lightning vs Aer | default vs Aer |",
        "|---|---|---|---|---|---|---|",
    ]

    def cell(pair: tuple[float, float]) -> str:
        raw, ours = pair
        if np.isnan(raw):
            return "skipped"
        return f"{raw:.3f} s / {ours:.3f} s ({ours / raw:.2f}x)"

    for row in rows:
        aer_raw = row["aer"][0]
        lightning = row["lightning.qubit"][0] / aer_raw
        default = row["default.qubit"][0] / aer_raw
        default_text = "skipped" if np.isnan(default) else f"{default:.2f}x"
        lines.append(
            f"| {row['circuit']} | {row['qubits']} | {cell(row['aer'])} "
            f"| {cell(row['lightning.qubit'])} | {cell(row['default.qubit'])} "
            f"| {lightning:.2f}x | {default_text} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 20, 24], help="qubits")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    parser.add_argument(
        "--skip-default-above",
        type=int,
        default=99,
        help="skip default.qubit above this many qubits (it is ~10x slower)",
    )
    args = arguments(parser, sizes=[3], repeats=1)
    rows = measure(args.sizes, args.repeats, args.skip_default_above)
    print(f"\n{SHOTS} shots, statevector, best of {args.repeats}; ratio = ours / raw library call")
    print(markdown(rows))


if __name__ == "__main__":
    with published("quantum_backends"):
        main()
