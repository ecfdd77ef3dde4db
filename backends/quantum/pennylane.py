"""PennyLane devices (default.qubit, lightning.qubit, lightning.gpu, lightning.kokkos)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from ...errors import CapabilityError
from ..base import BackendOptions, Tier, Unavailability
from ..gpu import no_cuda_reason
from .base import JobJournal, QuantumBackend, QuantumCapabilities, SampleResult
from .dynamic import (
    expectation,
    is_static,
    outcome_distribution,
    partition,
    run_branches,
    strip_final_measurements,
)
from .measurements import distribution_to_bitstrings, split_measurements
from .seeds import circuit_seeds
from .to_pennylane import apply_circuit, to_pennylane, to_pennylane_ops

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

    def _run(
        self, tapes: list[tuple[Any, int]], seeds: Sequence[int | None] | None = None
    ) -> list[Any]:
        """Execute (tape, number of wires) pairs through the device's own preprocessing,
        tape k on a device seeded with seeds[k] (None: unseeded)."""
        import pennylane as qml

        seeds = [None] * len(tapes) if seeds is None else seeds
        results = []
        for (tape, num_wires), tape_seed in zip(tapes, seeds, strict=True):
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

        results = []
        for circuit, circuit_seed in zip(circuits, circuit_seeds(seed, len(circuits)), strict=True):
            if is_static(circuit):
                p = split_measurements(circuit)
                tape = self._tape(p.unitary_part, qml.sample(wires=list(p.qubits)), shots)
                (bits,) = self._run([tape], [circuit_seed])
                clbits = p.clbits
            else:
                bits, clbits = self._sample_dynamic(circuit, shots, circuit_seed)
            bits = np.asarray(bits, dtype=np.int64).reshape(shots, len(clbits))
            keys = (bits << np.asarray(clbits, dtype=np.int64)).sum(axis=1)
            values, counts = np.unique(keys, return_counts=True)
            width = f"0{circuit.num_clbits}b"
            results.append(
                SampleResult(
                    {format(int(v), width): int(n) for v, n in zip(values, counts, strict=True)},
                    shots,
                )
            )
        return results

    def qnode(
        self,
        circuit: QuantumCircuit,
        observable: SparsePauliOp | str,
        *,
        diff_method: Literal["parameter-shift", "adjoint", "backprop", "best"] = "best",
    ) -> Any:
        """A differentiable PennyLane QNode on this backend's device: the expectation value
        of `observable` in the state `circuit` prepares, as a function of the circuit's
        parameters (in the order of `circuit.parameters`).

        Example:
            >>> import substrates
            >>> from pennylane import numpy as pnp
            >>> from qiskit import QuantumCircuit
            >>> from qiskit.circuit import Parameter
            >>> qc = QuantumCircuit(1)
            >>> _ = qc.ry(Parameter("θ"), 0)
            >>> energy = substrates.load_backend("pennylane_default").qnode(qc, "Z")
            >>> import pennylane as qml
            >>> round(float(qml.grad(energy)(pnp.array(0.4, requires_grad=True))), 6)
            -0.389418
        """
        import pennylane as qml
        from qiskit.quantum_info import SparsePauliOp

        pauli = SparsePauliOp(observable) if isinstance(observable, str) else observable
        body = strip_final_measurements(circuit)
        if not is_static(body):
            raise CapabilityError(f"circuit {circuit.name!r}: qnode takes unitary circuits only")
        qfunc = to_pennylane(body)
        measurement = _to_pennylane_observable(pauli)

        def program(*values: Any) -> Any:
            qfunc(*values)
            return qml.expval(measurement)

        device = qml.device(self.options.device, wires=circuit.num_qubits)
        return qml.QNode(program, device, diff_method=diff_method)

    def _sample_dynamic(
        self, circuit: QuantumCircuit, shots: int, seed: int | None
    ) -> tuple[Any, tuple[int, ...]]:
        """Shots of a circuit with mid-circuit measurement, reset or conditionals through
        PennyLane's own mid-circuit measurements (qml.measure, qml.cond), by tree
        traversal: each branch of the measurement tree is simulated once and the shots are
        divided among branches as they are drawn, where the one-shot method simulated the
        whole circuit once per shot (200 to 260 times slower on five circuits × 4,000
        shots; `benchmarks/quantum_backends.py`). Every device we take (default.qubit and
        the lightning family) offers it."""
        import pennylane as qml

        written: list[int] = []

        def program() -> Any:
            measured = apply_circuit(circuit)
            if not measured:
                raise CapabilityError(f"circuit {circuit.name!r} measures nothing")
            written.extend(sorted(measured))
            return qml.sample(op=[measured[c] for c in written])

        device = qml.device(self.options.device, wires=circuit.num_qubits, seed=seed)
        node = qml.QNode(program, device, mcm_method="tree-traversal", shots=shots)
        return node(), tuple(written)

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
            (probs,) = self._run([tape])
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
        tapes = [
            (QuantumScript([qml.StatePrep(s, wires=wires), *ops], [qml.state()]), n) for s in states
        ]
        return [
            np.asarray(psi).reshape([2] * n).transpose(wires).reshape(-1)
            for psi in self._run(tapes)
        ]

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
        journal: JobJournal | None,
    ) -> np.ndarray:
        import pennylane as qml

        bodies = [strip_final_measurements(c) for c in circuits]
        static, dynamic = partition(bodies)
        if precision > 0 and dynamic:
            raise CapabilityError(
                f"circuit {bodies[dynamic[0]].name!r}: {self.name} estimates circuits with "
                "mid-circuit measurement, reset or control flow exactly only; use precision=0"
            )
        values = np.zeros(len(circuits))
        tapes = [
            self._tape(
                bodies[i],
                qml.expval(_to_pennylane_observable(observables[i])),
                shots_for(observables[i], precision),
            )
            for i in static
        ]
        values[static] = [float(v) for v in self._run(tapes, circuit_seeds(seed, len(tapes)))]
        for i in dynamic:
            values[i] = expectation(run_branches(bodies[i], self._evolve), observables[i])
        return values


def shots_for(observable: SparsePauliOp, precision: float) -> int | None:
    """Shots that bring the standard error of ⟨observable⟩ to `precision` or below (None:
    exact, for precision 0). Each Pauli term's shot outcome is ±1, so one shot of the sum
    varies by at most λ = Σ|cᵢ| over the non-identity terms, whatever terms the device
    measures together: ⌈(λ / precision)²⌉ shots, at least 1.

    Example:
        >>> from qiskit.quantum_info import SparsePauliOp
        >>> shots_for(SparsePauliOp.from_list([("ZZ", 0.5), ("XI", -1.5), ("II", 7.0)]), 0.1)
        400
    """
    if precision == 0:
        return None
    spread = sum(abs(c) for label, c in observable.to_list() if set(label) != {"I"})
    return max(1, math.ceil((spread / precision) ** 2))


def _to_pennylane_observable(observable: SparsePauliOp) -> Any:
    """A Qiskit Pauli sum as a PennyLane operator (label character -1-i acts on wire i)."""
    from pennylane.pauli import PauliSentence, PauliWord

    sentence = PauliSentence()
    for label, coeff in observable.to_list():
        word = PauliWord({i: c for i, c in enumerate(reversed(label)) if c != "I"})
        sentence[word] = sentence.get(word, 0.0) + float(np.real(coeff))
    return sentence.operation(wire_order=range(observable.num_qubits))
