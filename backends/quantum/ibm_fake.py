"""The `quantum.ibm` code path on a real device's snapshot, in runtime local mode.

Transpilation to the device's ISA, the SamplerV2/EstimatorV2 calls, execution modes and
job journaling are IBMBackend's own; only the service differs: fake devices run locally
and finished jobs are kept in a local store so they can be collected by id.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from . import local_jobs
from .device_snapshots import SnapshotName, load_snapshot
from .ibm import IBMBackend, RuntimeOptions
from .seeds import base_seed

if TYPE_CHECKING:
    from qiskit.providers import BackendV2


class IBMFakeOptions(RuntimeOptions):
    """Options of `quantum.ibm_fake`. device: a snapshot name such as 'fake_brisbane'."""

    device: SnapshotName = "fake_brisbane"


class IBMFakeBackend(IBMBackend):
    """IBM's fake backends (real calibration snapshots, simulated with their noise)."""

    name: ClassVar[str] = "quantum.ibm_fake"
    tier: ClassVar = "simulator"
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

    def _retain(self, job: Any) -> None:
        local_jobs.keep(job)

    def _result(self, job_id: str) -> Any:
        return local_jobs.load(job_id)
