"""PennyLane devices (default.qubit, lightning.qubit, lightning.gpu, lightning.kokkos)."""

from __future__ import annotations

import math
import os
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from ..base import BackendOptions, Tier, Unavailability
from ..errors import CapabilityError
from ..gpu import no_cuda_reason
from .base import JobJournal, QuantumBackend, QuantumCapabilities, SampleResult
from .dynamic import (
    expectation,
    is_static,
    outcome_distribution,
    run_branches,
    strip_final_measurements,
)
from .measurements import distribution_to_bitstrings, split_measurements
from .seeds import circuit_seeds
from .to_pennylane import to_pennylane_ops

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp

DeviceName = Literal["default.qubit", "lightning.qubit", "lightning.gpu", "lightning.kokkos"]

_PLUGIN = {
    "default.qubit": "pennylane",
    "lightning.qubit": "pennylane_lightning",
    "lightning.gpu": "pennylane_lightning_gpu",
    "lightning.kokkos": "pennylane_lightning_kokkos",
}
_PIP = {
    "pennylane_lightning_gpu": "pip install 'substrates[gpu]'",
    "pennylane_lightning_kokkos": "pip install pennylane-lightning-kokkos",
}


class PennyLaneOptions(BackendOptions):
    """Options of `quantum.pennylane`.

    device: PennyLane device name; lightning.gpu makes this a GPU tier.
    """

    device: DeviceName = "default.qubit"


class PennyLaneBackend(QuantumBackend):
    """Any PennyLane state-vector device, fed Qiskit circuits through our converter."""

    name: ClassVar[str] = "quantum.pennylane"
    tier: ClassVar = "simulator"
    Options: ClassVar = PennyLaneOptions
    requires: ClassVar = ("qiskit", "pennylane")

    options: PennyLaneOptions

    @classmethod
    def resolved_tier(cls, options: PennyLaneOptions) -> Tier:  # type: ignore[override]
        return "gpu" if options.device == "lightning.gpu" else "simulator"

    @classmethod
    def unavailability(cls, options: PennyLaneOptions) -> Unavailability | None:  # type: ignore[override]
        problem = super().unavailability(options)
        if problem is not None:
            return problem
        if cls.resolved_tier(options) == "gpu" and (reason := no_cuda_reason()):
            return Unavailability("no-gpu", f"{options.device}: {reason}")
        plugin = _PLUGIN[options.device]
        if find_spec(plugin) is None:
            hint = _PIP.get(plugin, f"pip install 'substrates[{cls.extra}]'")
            return Unavailability(
                "missing-package", f"{options.device} needs Python package {plugin!r}: {hint}"
            )
        return None

    @property
    def capabilities(self) -> QuantumCapabilities:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        copies = (
            2 if self.options.device == "default.qubit" else 1
        )  # default.qubit copies the state
        return QuantumCapabilities(max_qubits=int(math.log2(memory / (16 * copies))), exact=True)

    def _run(self, tapes: list[tuple[Any, int]], seed: int | None) -> list[Any]:
        """Execute (tape, number of wires) pairs through the device's own preprocessing;
        each tape on a device seeded with its own stream derived from `seed`."""
        import pennylane as qml

        results = []
        for (tape, num_wires), tape_seed in zip(
            tapes, circuit_seeds(seed, len(tapes)), strict=True
        ):
            device = qml.device(self.options.device, wires=num_wires, seed=tape_seed)
            program = device.preprocess_transforms()
            batch, postprocess = program([tape])
            results.append(postprocess(device.execute(batch))[0])
        return results

    def _tape(
        self, circuit: QuantumCircuit, measurement: Any, shots: int | None
    ) -> tuple[Any, int]:
        from pennylane.tape import QuantumScript

        tape = QuantumScript(to_pennylane_ops(circuit), [measurement], shots=shots)
        return tape, circuit.num_qubits

    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]:
        import pennylane as qml

        parts = [split_measurements(c) for c in circuits]
        tapes = [self._tape(p.unitary_part, qml.sample(wires=list(p.qubits)), shots) for p in parts]
        results = []
        for p, bits in zip(parts, self._run(tapes, seed), strict=True):
            bits = np.asarray(bits, dtype=np.int64).reshape(shots, len(p.qubits))
            keys = (bits << np.asarray(p.clbits, dtype=np.int64)).sum(axis=1)
            values, counts = np.unique(keys, return_counts=True)
            width = f"0{p.num_clbits}b"
            results.append(
                SampleResult(
                    {format(int(v), width): int(n) for v, n in zip(values, counts, strict=True)},
                    shots,
                )
            )
        return results

    def _probabilities(self, circuits: list[QuantumCircuit]) -> list[dict[str, float]]:
        import pennylane as qml

        out: list[dict[str, float]] = []
        for circuit in circuits:
            if not is_static(circuit):
                branches = run_branches(circuit, self._evolve)
                out.append(outcome_distribution(branches, circuit.num_clbits))
                continue
            parts = split_measurements(circuit)
            tape = self._tape(parts.unitary_part, qml.probs(wires=list(parts.qubits)[::-1]), None)
            (probs,) = self._run([tape], None)
            out.append(
                distribution_to_bitstrings(np.asarray(probs), parts.clbits, parts.num_clbits)
            )
        return out

    def _evolve(self, states: list[np.ndarray], segment: QuantumCircuit) -> list[np.ndarray]:
        """Each state through a unitary segment on this device (an `Evolve`)."""
        import pennylane as qml
        from pennylane.tape import QuantumScript

        n = segment.num_qubits
        wires = list(range(n))[::-1]  # PennyLane's first wire is the most significant bit
        ops = to_pennylane_ops(segment)
        tapes = [(QuantumScript([qml.StatePrep(s, wires=wires), *ops], [qml.state()]), n)
                 for s in states]  # fmt: skip
        return [
            np.asarray(psi).reshape([2] * n).transpose(wires).reshape(-1)
            for psi in self._run(tapes, None)
        ]

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
    ) -> np.ndarray:
        import pennylane as qml

        shots = None if precision == 0 else math.ceil(1 / precision**2)
        bodies = [strip_final_measurements(c) for c in circuits]
        if shots is not None and (dynamic := [b for b in bodies if not is_static(b)]):
            raise CapabilityError(
                f"circuit {dynamic[0].name!r}: {self.name} estimates circuits with mid-circuit "
                "measurement, reset or control flow exactly only; use precision=0"
            )
        values = np.zeros(len(circuits))
        static = [i for i, b in enumerate(bodies) if is_static(b)]
        tapes = [
            self._tape(bodies[i], qml.expval(_to_pennylane_observable(observables[i])), shots)
            for i in static
        ]
        values[static] = [float(v) for v in self._run(tapes, seed)]
        for i, body in enumerate(bodies):
            if i not in static:
                values[i] = expectation(run_branches(body, self._evolve), observables[i])
        return values


def _to_pennylane_observable(observable: SparsePauliOp) -> Any:
    """A Qiskit Pauli sum as a PennyLane operator (label character -1-i acts on wire i)."""
    from pennylane.pauli import PauliSentence, PauliWord

    sentence = PauliSentence()
    for label, coeff in observable.to_list():
        word = PauliWord({i: c for i, c in enumerate(reversed(label)) if c != "I"})
        sentence[word] = sentence.get(word, 0.0) + float(np.real(coeff))
    return sentence.operation(wire_order=range(observable.num_qubits))
