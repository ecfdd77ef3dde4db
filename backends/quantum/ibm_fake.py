"""The `quantum.ibm` code path on a real device's snapshot, in runtime local mode.

Transpilation to the device's ISA, the executor Sampler/Estimator calls, execution modes
and job journaling are IBMBackend's own; only the service differs: fake devices run
locally, finished jobs are kept in a local store so they can be collected by id later,
and a Batch or Session (which local mode leaves without an id) gets a local id.
"""

from __future__ import annotations

import uuid
import weakref
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import model_validator

from ..base import BackendOptions, Tier
from . import local_jobs
from .device_snapshots import SnapshotName, load_snapshot
from .ibm import IBMBackend, RuntimeOptions
from .seeds import base_seed
from .snapshot_subset import narrowed, sub_simulator

MPS_ABOVE_QUBITS = 24

if TYPE_CHECKING:
    from qiskit.providers import BackendV2
    from qiskit_aer import AerSimulator


class IBMFakeOptions(RuntimeOptions):
    """Options of `quantum.ibm_fake`. device: a snapshot name such as 'fake_brisbane'."""

    device: SnapshotName = "fake_brisbane"

    @model_validator(mode="after")
    def _no_pec_on_a_snapshot(self) -> Self:
        if self.pec_mitigation:
            raise ValueError(
                "pec_mitigation learns each layer's noise on the device itself, which a "
                "snapshot cannot: use resilience_level 1 or 2 (TREX, ZNE) here"
            )
        return self


class IBMFakeBackend(IBMBackend):
    """IBM's fake backends (real calibration snapshots, simulated with their noise)."""

    name: ClassVar[str] = "quantum.ibm_fake"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[RuntimeOptions]] = IBMFakeOptions
    needs_credentials: ClassVar[bool] = False  # a snapshot runs locally

    def __init__(self, options: BackendOptions | dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self._local_ids: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._subsets: dict[tuple[int, ...], Any] = {}

    def _find_device(self, min_qubits: int) -> BackendV2:
        return load_snapshot(self.options.device)

    @cached_property
    def _simulator_class(self) -> type[AerSimulator]:
        from qiskit_aer import AerSimulator

        return _stream_per_run(AerSimulator)

    def _executor(self) -> Any:
        """What a local Batch or Session is opened on: the snapshot (the jobs themselves run
        on `_simulator_on`)."""
        return self._device

    def _session_id(self, mode: Any) -> str | None:
        """Local mode leaves a Batch or Session without an id: ours, one per opened mode."""
        return self._local_ids.setdefault(mode, f"local-{uuid.uuid4()}")

    def _primitive_options(self, seed: int | None, primitive: str) -> dict[str, Any]:
        """The runtime's options, plus the local simulator's seed for the one job of a call
        (see `seeds.base_seed`)."""
        options = super()._primitive_options(seed, primitive)
        if seed is None:
            return options
        return {**options, "simulator": {"seed_simulator": base_seed(seed)}}

    def _placed(self, mode: Any, pubs: list[Any], estimating: bool) -> tuple[Any, list[Any]]:
        """Jobs run on the snapshot cut down to the qubits they touch or observe
        (`snapshot_subset`: the same outcomes and expectation values, seconds instead of
        minutes for an estimate on a 127-qubit snapshot, whose programs measure every
        qubit). A Batch or Session in local mode only groups jobs: its id is journalled
        all the same, whatever the jobs run on."""
        circuits = [pub[0] for pub in pubs] if estimating else pubs
        observables = [pub[1] for pub in pubs] if estimating else [[] for _ in pubs]
        kept, circuits, observables = narrowed(self.device.target, circuits, observables)
        narrow = list(zip(circuits, observables, strict=True)) if estimating else circuits
        return self._simulator_on(tuple(kept)), narrow

    def _simulator_on(self, kept: tuple[int, ...]) -> Any:
        """The snapshot's noisy simulator on its qubits `kept`, built once per set:
        matrix-product states above MPS_ABOVE_QUBITS of them, where a state vector would
        not fit."""
        if kept not in self._subsets:
            wide = len(kept) > MPS_ABOVE_QUBITS
            method = "matrix_product_state" if wide else "automatic"
            self._subsets[kept] = sub_simulator(
                self.device, list(kept), self._simulator_class, method
            )
        return self._subsets[kept]

    def _usage_s(self, job_id: str) -> float:
        """Local mode bills no QPU time."""
        return 0.0

    def _retain(self, job: Any) -> None:
        local_jobs.keep(job)

    def _result(self, job_id: str) -> Any:
        return local_jobs.load(job_id)


@cache
def _stream_per_run(simulator: type[AerSimulator]) -> type[AerSimulator]:
    """`simulator` (AerSimulator) seeding its k-th run with the given seed + k, as Aer seeds
    the circuits of one run. Runtime local mode simulates each item of a job's quantum
    program as a run of its own, every one with the job's seed, so identical circuits in one
    job would repeat each other's outcomes; with this they are independent, and the job is
    as reproducible (each job runs on a fresh copy, counting from 0)."""

    class StreamPerRun(simulator):  # type: ignore[valid-type, misc]
        _runs = 0

        def run(self, circuits: Any, **options: Any) -> Any:
            if options.get("seed_simulator") is not None:
                options["seed_simulator"] += self._runs
            self._runs += 1
            return super().run(circuits, **options)

    return StreamPerRun
