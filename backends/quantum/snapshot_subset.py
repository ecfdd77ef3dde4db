"""A device snapshot cut down to the qubits a request uses, for simulating its jobs.

The executor Estimator's programs measure every device qubit (its basis changes, twirled
measurements and TREX calibration span them all), so a 127-qubit snapshot needs a
127-qubit matrix-product-state simulation even for a Bell pair: a minute per estimate.
Aer's noise models have no crosstalk, so qubits a circuit never touches only add
independent outcomes that no observable reads: dropping them changes no expectation value
and no measured bit. `narrowed` keeps the touched qubits (and the observables' support),
`sub_simulator` their own calibration — gate errors and durations, readout errors, T1/T2 —
re-indexed from 0.

Example:
    >>> from qiskit import QuantumCircuit
    >>> from qiskit.transpiler import generate_preset_pass_manager
    >>> from qiskit.quantum_info import SparsePauliOp
    >>> from substrates.backends.quantum.device_snapshots import load_snapshot
    >>> device = load_snapshot("fake_brisbane")
    >>> bell = QuantumCircuit(2)
    >>> _ = bell.h(0)
    >>> _ = bell.cx(0, 1)
    >>> manager = generate_preset_pass_manager(optimization_level=1, backend=device)
    >>> (isa,) = manager.run([bell])
    >>> zz = SparsePauliOp("ZZ").apply_layout(isa.layout)
    >>> kept, (circuit,), ((observable,),) = narrowed(device.target, [isa], [[zz]])
    >>> len(kept), circuit.num_qubits, observable.num_qubits
    (2, 2, 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp
    from qiskit.transpiler import Target
    from qiskit_aer import AerSimulator

_NOT_AN_ACTION = {"barrier", "delay"}


def narrowed(
    target: Target, circuits: list[QuantumCircuit], observables: list[list[SparsePauliOp]]
) -> tuple[list[int], list[QuantumCircuit], list[list[SparsePauliOp]]]:
    """The device qubits the circuits act on or the observables read (sorted), and the
    circuits and observables on those alone: qubit `kept[i]` becomes qubit i. `observables`
    holds a list per circuit (empty lists for sampler jobs)."""
    from qiskit import QuantumCircuit, QuantumRegister
    from qiskit.circuit import Barrier

    used: set[int] = set()
    for circuit in circuits:
        for instruction in circuit.data:
            if instruction.operation.name not in _NOT_AN_ACTION:
                used.update(circuit.find_bit(q).index for q in instruction.qubits)
    for observable in (o for group in observables for o in group):
        support = observable.paulis.z | observable.paulis.x
        used.update(int(q) for q in support.any(axis=0).nonzero()[0])
    kept = sorted(used)
    dropped = [q for q in range(target.num_qubits) if q not in used]
    index = {q: i for i, q in enumerate(kept)}
    narrow_circuits = []
    for circuit in circuits:
        # one register named q, as a physical circuit has (scheduling passes check it)
        physical = QuantumCircuit(QuantumRegister(len(kept), "q"), *circuit.cregs)
        physical.global_phase = circuit.global_phase
        for instruction in circuit.data:
            qubits = [circuit.find_bit(q).index for q in instruction.qubits]
            if instruction.operation.name in _NOT_AN_ACTION:
                qubits = [q for q in qubits if q in index]
                if not qubits:
                    continue
                if instruction.operation.name == "barrier":
                    instruction = instruction.replace(operation=Barrier(len(qubits)))
            physical.append(
                instruction.replace(qubits=[physical.qubits[index[q]] for q in qubits]),
                copy=False,
            )
        narrow_circuits.append(physical)
    narrow_observables = [
        [o.__class__(o.paulis.delete(dropped, qubit=True), o.coeffs) for o in group]
        for group in observables
    ]
    return kept, narrow_circuits, narrow_observables


def sub_target(target: Target, kept: list[int]) -> Target:
    """`target` on the qubits `kept` alone, re-indexed from 0: every instruction on them,
    with its error and duration, their qubit properties, and the global instructions
    (control flow)."""
    from qiskit.transpiler import Target

    index = {q: i for i, q in enumerate(kept)}
    properties = target.qubit_properties
    out = Target(
        num_qubits=len(kept),
        dt=target.dt,
        qubit_properties=None if properties is None else [properties[q] for q in kept],
        granularity=target.granularity,
        min_length=target.min_length,
        pulse_alignment=target.pulse_alignment,
        acquire_alignment=target.acquire_alignment,
    )
    for name in target.operation_names:
        operation = target.operation_from_name(name)
        by_qargs = target[name]
        if None in by_qargs or not by_qargs:  # a global instruction (if_else, for_loop, ...)
            out.add_instruction(operation, name=name)
            continue
        kept_here = {
            tuple(index[q] for q in qargs): value
            for qargs, value in by_qargs.items()
            if qargs is not None and all(q in index for q in qargs)
        }
        if kept_here:
            out.add_instruction(operation, kept_here, name=name)
    return out


def sub_simulator(
    device: Any, kept: list[int], simulator: type[AerSimulator], method: str = "automatic"
) -> AerSimulator:
    """A noisy `simulator` (AerSimulator or a subclass, with Aer's `method`) of `device` (a
    BackendV2 snapshot) on the qubits `kept`."""
    from qiskit.providers import BackendV2, Options

    target = sub_target(device.target, kept)

    class Subset(BackendV2):
        """The snapshot's qubits `kept`, as a backend Aer builds a noise model from."""

        @property
        def target(self) -> Target:
            return target

        @property
        def max_circuits(self) -> None:
            return None

        @classmethod
        def _default_options(cls) -> Options:
            return Options()

        def run(self, run_input: Any, **options: Any) -> Any:
            raise NotImplementedError("a description for AerSimulator.from_backend only")

    subset = Subset(name=f"{device.name}[{','.join(map(str, kept))}]", backend_version="1")
    return simulator.from_backend(subset, method=method)
