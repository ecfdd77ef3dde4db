"""Qiskit Aer on the CPU: statevector, matrix-product-state and density-matrix methods."""

from __future__ import annotations

import math
import os
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from ...errors import CapabilityError
from ..base import BackendOptions, Tier
from .base import JobJournal, QuantumBackend, QuantumCapabilities, SampleResult
from .device_snapshots import SnapshotName, load_snapshot
from .dynamic import (
    expectation,
    is_static,
    outcome_distribution,
    partition,
    run_branches,
    strip_final_measurements,
)
from .measurements import distribution_to_bitstrings, outcomes_to_bitstrings, split_measurements
from .mps_outcomes import mps_outcomes
from .seeds import base_seed, circuit_seeds

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_aer import AerSimulator

AerMethod = Literal["statevector", "matrix_product_state", "density_matrix"]

_MPS_MAX_QUBITS = 63
"""Aer's limit for matrix_product_state (bit indices are 64-bit words)."""


MAX_THREADS = 4096
"""More CPU threads than any machine Aer runs on has."""


class AerOptions(BackendOptions):
    """Options of `quantum.aer`.

    method: Aer simulation method.
    precision: floating-point precision of the state.
    noise_model: name of an IBM device snapshot whose noise model, basis gates and
        coupling map to simulate (e.g. 'fake_brisbane'); None for an ideal simulation.
    max_parallel_threads: CPU threads (0: all; at most MAX_THREADS).
    """

    method: AerMethod = "statevector"
    precision: Literal["double", "single"] = "double"
    noise_model: SnapshotName | None = None
    max_parallel_threads: int = Field(0, ge=0, le=MAX_THREADS)


def _memory_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


class AerBackend(QuantumBackend):
    """Qiskit Aer's AerSimulator, exact (no noise) or with a real device's noise model."""

    name: ClassVar[str] = "quantum.aer"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[BackendOptions]] = AerOptions
    requires: ClassVar[tuple[str, ...]] = ("qiskit", "qiskit_aer", "qiskit_ibm_runtime")
    aer_device: ClassVar[str] = "CPU"

    options: AerOptions

    def _device_memory_bytes(self) -> int:
        return _memory_bytes()

    @property
    def capabilities(self) -> QuantumCapabilities:
        opts = self.options
        amplitude_bytes = 16 if opts.precision == "double" else 8
        per_qubit = 2 if opts.method == "density_matrix" else 1
        memory_limit = int(math.log2(self._device_memory_bytes() / amplitude_bytes)) // per_qubit
        max_qubits = _MPS_MAX_QUBITS if opts.method == "matrix_product_state" else memory_limit
        if opts.noise_model is not None:
            max_qubits = min(max_qubits, load_snapshot(opts.noise_model).num_qubits)
        exact = opts.noise_model is None or opts.method == "density_matrix"
        return QuantumCapabilities(max_qubits=max_qubits, exact=exact)

    def _backend_options(self) -> dict[str, Any]:
        opts = self.options
        return {
            "method": opts.method,
            "device": self.aer_device,
            "precision": opts.precision,
            "max_parallel_threads": opts.max_parallel_threads,
        }

    @cached_property
    def simulator(self) -> AerSimulator:
        """The AerSimulator these options describe (built on first use)."""
        from qiskit_aer import AerSimulator

        if self.options.noise_model is None:
            return AerSimulator(**self._backend_options())
        return AerSimulator.from_backend(
            load_snapshot(self.options.noise_model), **self._backend_options()
        )

    def _prepare(self, circuits: list[QuantumCircuit], seed: int | None) -> list[QuantumCircuit]:
        """Map circuits onto the device snapshot, or decompose gates Aer does not know."""
        from qiskit import transpile
        from qiskit.transpiler import generate_preset_pass_manager

        if self.options.noise_model is not None:
            manager = generate_preset_pass_manager(
                optimization_level=1, backend=self.simulator, seed_transpiler=seed
            )
            return list(manager.run(circuits))
        return [
            c
            if c.count_ops().keys() <= self._native_operations
            else transpile(c, self.simulator, optimization_level=0)
            for c in circuits
        ]

    @cached_property
    def _native_operations(self) -> frozenset[str]:
        """Instructions Aer runs as they are (reading `target` rebuilds it: cache once)."""
        return frozenset(self.simulator.target.operation_names) | {"barrier"}

    def _compiled(self, circuits: list[QuantumCircuit]) -> list[QuantumCircuit]:
        return self._prepare(circuits, seed=None)

    def _exact_refusal(self, circuit: QuantumCircuit) -> str | None:
        if self.options.noise_model is not None and not is_static(circuit):
            return (
                "exact results of a circuit with mid-circuit measurement, reset or control "
                "flow under a noise model are not available; sample it instead"
            )
        return None

    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]:
        prepared = self._prepare(circuits, seed)
        # one run (a run per circuit cost 1 s each with a device's noise model)
        options = {} if seed is None else {"seed_simulator": base_seed(seed)}
        result = self.simulator.run(prepared, shots=shots, **options).result()
        return [
            SampleResult({k.replace(" ", ""): v for k, v in result.get_counts(i).items()}, shots)
            for i in range(len(circuits))
        ]

    def _probabilities(self, circuits: list[QuantumCircuit]) -> list[dict[str, float]]:
        static, dynamic = partition(circuits)
        out: list[dict[str, float]] = [{} for _ in circuits]
        prepared, measured = [], []
        mps = self.options.method == "matrix_product_state"
        for circuit in self._prepare([circuits[i] for i in static], seed=None):
            parts = split_measurements(circuit)
            body = parts.unitary_part  # a fresh circuit of its own: no copy needed
            if mps:  # the state itself: outcomes found without a 2^n vector
                body.save_matrix_product_state(label="state")
            else:
                body.save_probabilities(list(parts.qubits), label="state")
            prepared.append(body)
            measured.append(parts)
        if prepared:
            result = self.simulator.run(prepared, shots=1).result()
            for k, (i, parts) in enumerate(zip(static, measured, strict=True)):
                saved = result.data(k)["state"]
                try:
                    out[i] = (
                        outcomes_to_bitstrings(
                            mps_outcomes(saved[0], saved[1], parts.qubits),
                            parts.clbits,
                            parts.num_clbits,
                        )
                        if mps
                        else distribution_to_bitstrings(
                            np.asarray(saved), parts.clbits, parts.num_clbits
                        )
                    )
                except CapabilityError as err:
                    raise CapabilityError(f"circuit {circuits[i].name!r}: {err}") from None
        for i in dynamic:
            out[i] = outcome_distribution(
                run_branches(circuits[i], self._evolve), circuits[i].num_clbits
            )
        return out

    @cached_property
    def _dense_simulator(self) -> AerSimulator:
        """Aer's statevector method on this device, for the branches of dynamic circuits."""
        from qiskit_aer import AerSimulator

        return AerSimulator(**{**self._backend_options(), "method": "statevector"})

    def _evolve(self, states: list[np.ndarray], segment: QuantumCircuit) -> list[np.ndarray]:
        """Each state through a unitary segment, all in one Aer run (an `Evolve`)."""
        from qiskit import QuantumCircuit

        (body,) = self._prepare([segment], seed=None)
        runs = []
        for state in states:
            circuit = QuantumCircuit(segment.num_qubits)
            circuit.set_statevector(state)
            circuit.compose(body, inplace=True)
            circuit.save_statevector()
            runs.append(circuit)
        result = self._dense_simulator.run(runs, shots=1).result()
        return [np.asarray(result.data(i)["statevector"]) for i in range(len(runs))]

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
        journal: JobJournal | None,
    ) -> np.ndarray:
        from qiskit_aer.primitives import EstimatorV2

        bodies = [strip_final_measurements(c) for c in circuits]
        static, dynamic = partition(bodies)
        if dynamic and self.options.noise_model is not None:
            raise CapabilityError(
                f"circuit {circuits[dynamic[0]].name!r}: expectation values of a circuit with "
                "mid-circuit measurement, reset or control flow under a noise model are not "
                "available; sample it instead"
            )
        values = np.zeros(len(circuits))
        seeds = circuit_seeds(seed, len(circuits))
        if static:
            prepared = self._prepare([bodies[i] for i in static], seed)
            pubs = [
                (c, o.apply_layout(c.layout) if c.layout is not None else o)
                for c, o in zip(prepared, [observables[i] for i in static], strict=True)
            ]
            options: dict[str, Any] = {"backend_options": self._backend_options()}
            if self.options.noise_model is not None:
                options["backend_options"]["noise_model"] = self.simulator.options.noise_model
            if seed is not None:
                options["run_options"] = {"seed_simulator": seeds[static[0]]}
            result = EstimatorV2(options=options).run(pubs, precision=precision).result()
            values[static] = [float(r.data.evs) for r in result]
        for i in dynamic:  # exact, then N(0, precision) as Aer's EstimatorV2 does
            values[i] = expectation(run_branches(bodies[i], self._evolve), observables[i])
            if precision > 0:
                values[i] = np.random.default_rng(seeds[i]).normal(values[i], precision)
        return values
