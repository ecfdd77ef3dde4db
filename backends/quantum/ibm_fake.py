"""The `quantum.ibm` code path on a real device's snapshot, in runtime local mode.

Transpilation to the device's ISA, the SamplerV2/EstimatorV2 calls, execution modes and
job journaling are IBMBackend's own; only the service differs: fake devices run locally
and finished jobs are kept in a local store so they can be collected by id.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from ..base import Tier
from . import local_jobs
from .device_snapshots import SnapshotName, load_snapshot
from .ibm import IBMBackend, RuntimeOptions
from .seeds import base_seed

MPS_ABOVE_QUBITS = 24

if TYPE_CHECKING:
    from qiskit.providers import BackendV2


class IBMFakeOptions(RuntimeOptions):
    """Options of `quantum.ibm_fake`. device: a snapshot name such as 'fake_brisbane'."""

    device: SnapshotName = "fake_brisbane"


class IBMFakeBackend(IBMBackend):
    """IBM's fake backends (real calibration snapshots, simulated with their noise)."""

    name: ClassVar[str] = "quantum.ibm_fake"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[RuntimeOptions]] = IBMFakeOptions
    needs_credentials: ClassVar[bool] = False  # a snapshot runs locally

    def _find_device(self, min_qubits: int) -> BackendV2:
        return load_snapshot(self.options.device)

    @cached_property
    def _simulator(self) -> Any:
        from qiskit_aer import AerSimulator

        return AerSimulator.from_backend(self._device)

    def _executor(self) -> Any:
        """The snapshot's noisy simulator, built once: a fake backend rebuilds it per job."""
        return self._simulator

    def _primitive_options(self, seed: int | None, primitive: str) -> dict[str, Any]:
        """The runtime's options, plus the local simulator's seed for the one job of a call
        (see `seeds.base_seed`)."""
        options = super()._primitive_options(seed, primitive)
        if seed is None:
            return options
        return {**options, "simulator": {"seed_simulator": base_seed(seed)}}

    @cached_property
    def _mitigating_simulator(self) -> Any:
        """The snapshot's noisy simulator for the client-side Estimator, whose programs span
        every device qubit (readout calibration included): matrix-product states above
        MPS_ABOVE_QUBITS device qubits, where a state vector would not fit."""
        from qiskit_aer import AerSimulator

        wide = self.device.num_qubits > MPS_ABOVE_QUBITS
        method = "matrix_product_state" if wide else "automatic"
        return AerSimulator.from_backend(self._device, method=method)

    def _submit_estimator(self, pubs: list[Any], seed: int | None, precision: float) -> Any:
        """Mitigation asked for runs where local mode can apply it: the runtime's
        client-side Estimator (TREX, ZNE by qiskit-mitigation) on the snapshot's noise."""
        opts = self.options
        if not ((opts.resilience_level or 0) >= 1 or opts.measure_mitigation):
            return super()._submit_estimator(pubs, seed, precision)
        from qiskit_ibm_runtime.executor_estimator import Estimator

        options = self._primitive_options(seed, "estimator")
        estimator = Estimator(mode=self._mitigating_simulator, options=options)
        return estimator.run(pubs, precision=precision)

    def _retain(self, job: Any) -> None:
        local_jobs.keep(job)

    def _result(self, job_id: str) -> Any:
        return local_jobs.load(job_id)
