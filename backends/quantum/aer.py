"""Qiskit Aer on the CPU: statevector, matrix-product-state and density-matrix methods."""

from __future__ import annotations

import math
import os
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from ..base import BackendOptions
from .base import JobJournal, QuantumBackend, QuantumCapabilities, SampleResult
from .device_snapshots import SnapshotName, load_snapshot
from .measurements import distribution_to_bitstrings, split_measurements

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_aer import AerSimulator

AerMethod = Literal["statevector", "matrix_product_state", "density_matrix"]

_MPS_MAX_QUBITS = 63
"""Aer's limit for matrix_product_state (bit indices are 64-bit words)."""


class AerOptions(BackendOptions):
    """Options of `quantum.aer`.

    method: Aer simulation method.
    precision: floating-point precision of the state.
    noise_model: name of an IBM device snapshot whose noise model, basis gates and
        coupling map to simulate (e.g. 'fake_brisbane'); None for an ideal simulation.
    max_parallel_threads: CPU threads (0: all).
    """

    method: AerMethod = "statevector"
    precision: Literal["double", "single"] = "double"
    noise_model: SnapshotName | None = None
    max_parallel_threads: int = Field(0, ge=0)


def _memory_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


class AerBackend(QuantumBackend):
    """Qiskit Aer's AerSimulator, exact (no noise) or with a real device's noise model."""

    name: ClassVar[str] = "quantum.aer"
    tier: ClassVar = "simulator"
    Options: ClassVar = AerOptions
    requires: ClassVar = ("qiskit", "qiskit_aer", "qiskit_ibm_runtime")
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

    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]:
        result = self.simulator.run(
            self._prepare(circuits, seed), shots=shots, seed_simulator=seed
        ).result()
        return [
            SampleResult({k.replace(" ", ""): v for k, v in result.get_counts(i).items()}, shots)
            for i in range(len(circuits))
        ]

    def _probabilities(self, circuits: list[QuantumCircuit]) -> list[dict[str, float]]:
        prepared, measured = [], []
        for circuit in self._prepare(circuits, seed=None):
            parts = split_measurements(circuit)
            body = parts.unitary_part.copy()
            body.save_probabilities(list(parts.qubits), label="probabilities")
            prepared.append(body)
            measured.append(parts)
        result = self.simulator.run(prepared, shots=1).result()
        return [
            distribution_to_bitstrings(
                np.asarray(result.data(i)["probabilities"]), parts.clbits, parts.num_clbits
            )
            for i, parts in enumerate(measured)
        ]

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
    ) -> np.ndarray:
        from qiskit_aer.primitives import EstimatorV2

        prepared = self._prepare(
            [c.remove_final_measurements(inplace=False) for c in circuits], seed
        )
        pubs = [
            (c, o.apply_layout(c.layout) if c.layout is not None else o)
            for c, o in zip(prepared, observables, strict=True)
        ]
        options: dict[str, Any] = {"backend_options": self._backend_options()}
        if self.options.noise_model is not None:
            options["backend_options"]["noise_model"] = self.simulator.options.noise_model
        if seed is not None:
            options["run_options"] = {"seed_simulator": seed}
        estimator = EstimatorV2(options=options)
        result = estimator.run(pubs, precision=precision).result()
        return np.array([float(r.data.evs) for r in result])
