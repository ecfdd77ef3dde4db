"""IBM Quantum through qiskit-ibm-runtime: ISA transpilation, the executor-based Sampler and
Estimator (the primitives the runtime supports from 0.50 on; SamplerV2 and EstimatorV2 are
deprecated there), jobs by id with their Batch/Session, usage and execution spans."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, model_validator

from ...errors import CapabilityError, SubstratesError
from ..base import BackendOptions, Tier, Unavailability
from .base import JobJournal, QuantumBackend, QuantumCapabilities, SampleResult
from .dynamic import strip_final_measurements

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.providers import BackendV2
    from qiskit.quantum_info import SparsePauliOp

_SAVED_ACCOUNT = Path.home() / ".qiskit" / "qiskit-ibm.json"
_FAILED = {"CANCELLED", "ERROR"}


class RuntimeOptions(BackendOptions):
    """Options shared by `quantum.ibm` and `quantum.ibm_fake`.

    optimization_level: preset pass manager level used to make ISA circuits.
    initial_layout: device qubits for the circuit's qubits 0, 1, … (None: the transpiler
        chooses).
    execution: one job per call, or one batch of independent jobs or one session holding
        the device for a whole run (opened at its first job, closed at its end).
    max_execution_time_s: cap on QPU seconds per job (None: the service default).
    dynamical_decoupling: pulse sequence filling idle qubits ('XX', 'XpXm', 'XY4'; None: off).
    twirling: Pauli-twirl two-qubit gates and measurements.
    resilience_level: the estimator's error mitigation preset (0 none, 1 readout (TREX),
        2 readout and zero-noise extrapolation); None: the estimator's default, 1.
    measure_mitigation: the estimator's readout mitigation (TREX) on or off (None: the
        level's).
    zne_mitigation: zero-noise extrapolation on or off (None: the level's).
    pec_mitigation: probabilistic error cancellation (learns each layer's noise on the
        device first; costly in QPU time). Needs a real device: refused on snapshots.
    Both primitives are qiskit-ibm-runtime's executor-based ones: the circuits are turned
    into a quantum program on this machine (twirling, the mitigation's calibration
    circuits), run on the device (or, for `quantum.ibm_fake`, on the snapshot's noisy
    simulator) and post-processed here when the result is fetched.
    """

    optimization_level: int = Field(2, ge=0, le=3)
    initial_layout: list[int] | None = None
    execution: Literal["job", "batch", "session"] = "batch"
    max_execution_time_s: int | None = Field(None, gt=0)
    dynamical_decoupling: Literal["XX", "XpXm", "XY4"] | None = None
    twirling: bool = False
    resilience_level: int | None = Field(None, ge=0, le=2)
    measure_mitigation: bool | None = None
    zne_mitigation: bool | None = None
    pec_mitigation: bool = False

    @model_validator(mode="after")
    def _layout_is_distinct_qubits(self) -> Self:
        layout = self.initial_layout
        if layout is not None and (len(set(layout)) != len(layout) or min(layout, default=0) < 0):
            raise ValueError("initial_layout must list distinct device qubits (integers ≥ 0)")
        return self


class IBMOptions(RuntimeOptions):
    """Options of `quantum.ibm`: name a device, or ask for the least busy one.

    channel and instance select the account (None: the saved default); the token is
    never an option: it comes from QISKIT_IBM_TOKEN or the saved account.
    """

    device: str | None = None
    least_busy: bool = False
    channel: Literal["ibm_quantum_platform", "ibm_cloud"] | None = None
    instance: str | None = None

    @model_validator(mode="after")
    def _one_device_choice(self) -> Self:
        if (self.device is None) == (not self.least_busy):
            raise ValueError("set exactly one of 'device: <name>' and 'least_busy: true'")
        return self


class IBMBackend(QuantumBackend):
    """Real IBM Quantum devices. Job ids go to the journal before any wait."""

    name: ClassVar[str] = "quantum.ibm"
    tier: ClassVar[Tier] = "hardware"
    Options: ClassVar[type[RuntimeOptions]] = IBMOptions
    requires: ClassVar[tuple[str, ...]] = ("qiskit", "qiskit_ibm_runtime")
    needs_credentials: ClassVar[bool] = True
    """False where the device runs locally (the fake snapshots)."""

    options: Any

    def __init__(self, options: BackendOptions | dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self._device: BackendV2 | None = None
        self._held: list[Any] | None = None  # inside session(): [] until the mode opens
        self.modes_opened = 0
        """Batches or Sessions opened so far (each job is journalled with its `session_id`)."""

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or not cls.needs_credentials:
            return problem
        if not (os.environ.get("QISKIT_IBM_TOKEN") or _SAVED_ACCOUNT.is_file()):
            return Unavailability(
                "no-credentials",
                "no IBM Quantum credentials: set QISKIT_IBM_TOKEN or run "
                "QiskitRuntimeService.save_account(token=..., set_as_default=True)",
            )
        return None

    @property
    def device(self) -> BackendV2:
        """The device the first validated request chose."""
        if self._device is None:
            raise SubstratesError(f"{self.name}: no device chosen yet; validate a request first")
        return self._device

    # -- the parts the fake backend replaces ------------------------------------------
    @cached_property
    def _service(self) -> Any:
        from qiskit_ibm_runtime import QiskitRuntimeService

        return QiskitRuntimeService(channel=self.options.channel, instance=self.options.instance)

    def _find_device(self, min_qubits: int) -> BackendV2:
        try:
            if self.options.device is not None:
                return self._service.backend(self.options.device)
            return self._service.least_busy(
                operational=True, simulator=False, min_num_qubits=min_qubits
            )
        except Exception as err:  # the service raises many types; the user needs one line
            raise SubstratesError(f"IBM Quantum: cannot choose a device: {err}") from err

    def _primitive_options(self, seed: int | None, primitive: str) -> dict[str, Any]:
        """Options of the executor Sampler ('sampler') or Estimator ('estimator') from ours."""
        opts = self.options
        out: dict[str, Any] = {}
        if opts.max_execution_time_s is not None:
            out["max_execution_time"] = opts.max_execution_time_s
        if opts.dynamical_decoupling is not None:
            out["dynamical_decoupling"] = {
                "enable": True,
                "sequence_type": opts.dynamical_decoupling,
            }
        if opts.twirling:
            out["twirling"] = {"enable_gates": True, "enable_measure": True}
        if primitive == "estimator":
            if opts.resilience_level is not None:
                out["resilience_level"] = opts.resilience_level
            resilience = {
                "measure_mitigation": opts.measure_mitigation,
                "zne_mitigation": opts.zne_mitigation,
                "pec_mitigation": opts.pec_mitigation or None,
            }
            if any(v is not None for v in resilience.values()):
                out["resilience"] = {k: v for k, v in resilience.items() if v is not None}
        return out

    def _executor(self) -> Any:
        """What primitives run on: the device itself."""
        return self._device

    def _retain(self, job: Any) -> None:
        """Nothing to do: IBM keeps every job's result on its servers."""

    def _result(self, job_id: str) -> Any:
        job = self._service.job(job_id)
        status = str(job.status())
        if status in _FAILED:
            raise SubstratesError(f"IBM job {job_id} ended {status}: {job.error_message()}")
        return job.result()

    # -- shared code path -------------------------------------------------------------
    @property
    def capabilities(self) -> QuantumCapabilities:
        if self._device is None:
            return QuantumCapabilities(max_qubits=None, exact=False)
        configuration = getattr(self._device, "configuration", None)
        shots = getattr(configuration(), "max_shots", None) if configuration else None
        return QuantumCapabilities(max_qubits=self._device.num_qubits, exact=False, max_shots=shots)

    def validate(
        self, circuits: Sequence[QuantumCircuit], *, shots: int | None = None, exact: bool = False
    ) -> None:
        """Choose the device (once, no hardware time spent), then check the request against it."""
        if self._device is None and circuits:
            self._device = self._find_device(max(c.num_qubits for c in circuits))
        super().validate(circuits, shots=shots, exact=exact)
        self._check_suppression(circuits)
        layout = self.options.initial_layout
        if layout is None or self._device is None:
            return
        if max(layout) >= self._device.num_qubits:
            raise CapabilityError(
                f"initial_layout names qubit {max(layout)}; {self._device.name} has "
                f"{self._device.num_qubits}"
            )
        for circuit in circuits:
            if circuit.num_qubits > len(layout):
                raise CapabilityError(
                    f"circuit {circuit.name!r} has {circuit.num_qubits} qubits; initial_layout "
                    f"places {len(layout)}"
                )

    def _check_suppression(self, circuits: Sequence[QuantumCircuit]) -> None:
        """Twirling and dynamical decoupling with control flow (if_test, while, for) are
        refused by the executor primitives after transpiling; refuse them before, by name."""
        opts = self.options
        asked = [
            name
            for name, on in (
                ("twirling", opts.twirling),
                ("dynamical_decoupling", opts.dynamical_decoupling),
            )
            if on
        ]
        if not asked:
            return
        for circuit in circuits:
            if any(getattr(i.operation, "blocks", ()) for i in circuit.data):
                raise CapabilityError(
                    f"circuit {circuit.name!r} has control flow, which the IBM primitives do not "
                    f"run with {' or '.join(asked)}: turn it off in the hardware config"
                )

    @contextmanager
    def session(self) -> Iterator[IBMBackend]:
        """One Batch or Session (per `execution`) for every call inside the block, opened
        at the first job and closed at the end, also on an error or an interruption."""
        if self._held is not None or self.options.execution == "job":
            yield self
            return
        self._held = []
        try:
            yield self
        finally:
            held, self._held = self._held, None
            for mode in held:
                mode.close()

    def _isa(self, circuits: list[QuantumCircuit], seed: int | None) -> list[QuantumCircuit]:
        from qiskit.transpiler import generate_preset_pass_manager

        layout = self.options.initial_layout
        manager = generate_preset_pass_manager(
            optimization_level=self.options.optimization_level,
            backend=self._device,
            seed_transpiler=seed,
            initial_layout=None if layout is None else layout[: circuits[0].num_qubits],
        )
        return list(manager.run(circuits))

    def _compiled(self, circuits: list[QuantumCircuit]) -> list[QuantumCircuit]:
        return self._isa(circuits, seed=None)

    def _open_mode(self) -> Any:
        from qiskit_ibm_runtime import Batch, Session

        self.modes_opened += 1
        mode_class = Batch if self.options.execution == "batch" else Session
        return mode_class(backend=self._executor())

    def _session_id(self, mode: Any) -> str | None:
        """The id IBM gave the Batch or Session (as `service.jobs(session_id=…)` takes it)."""
        return getattr(mode, "session_id", None)

    def _submit(self, primitive: type, pubs: list[Any], seed: int | None, **run: Any) -> Any:
        """Run a primitive in the configured execution mode: in the run's held
        Batch/Session inside `session()`, else one opened for this call. Returns the job
        and the id of the Batch/Session it went to (None for a plain job)."""
        estimating = "precision" in run
        options = self._primitive_options(seed, "estimator" if estimating else "sampler")
        with self._execution() as (mode, session_id):
            where, pubs = self._placed(mode, pubs, estimating)
            return _run(primitive, where, options, pubs, run), session_id

    def _placed(self, mode: Any, pubs: list[Any], estimating: bool) -> tuple[Any, list[Any]]:
        """What the primitive runs on, and the PUBs it runs: the mode and the PUBs as they
        are (the fake backend places them on a cut-down snapshot)."""
        return mode, pubs

    @contextmanager
    def _execution(self) -> Iterator[tuple[Any, str | None]]:
        """Where a job goes and the id of its Batch/Session: the device itself (a plain
        job, None), the run's held Batch/Session inside `session()`, else one opened for
        this job and closed after its submission."""
        if self.options.execution == "job":
            yield self._executor(), None
        elif self._held is not None:
            if not self._held:
                self._held.append(self._open_mode())
            yield self._held[0], self._session_id(self._held[0])
        else:
            with self._open_mode() as mode:
                yield mode, self._session_id(mode)

    def _job(
        self, info: dict[str, Any], journal: JobJournal | None, submit: Callable[[], Any]
    ) -> str:
        """The id of the job for this request: the one an interrupted execution submitted
        (the journal's replay), or a new one from `submit`, journalled before any wait with
        the id of the Batch/Session it went to (None: a plain job)."""
        earlier = getattr(journal, "replay", lambda _: None)(info)
        if journal is not None and earlier is not None:
            journal(earlier, {**info, "replayed": True})
            return str(earlier)
        job, session_id = submit()
        if journal is not None:
            journal(job.job_id(), {**info, "session_id": session_id})
        self._retain(job)
        return str(job.job_id())

    def _finished(self, job_id: str, result: Any, journal: JobJournal | None) -> None:
        """Tell the journal (where it keeps such records) what the ended job cost: the QPU
        seconds IBM billed and the spans the device spent executing it."""
        record = getattr(journal, "finished", None)
        if record is not None:
            record(job_id, {"usage_s": self._usage_s(job_id), "execution_spans": _spans(result)})

    def _usage_s(self, job_id: str) -> float:
        """QPU seconds IBM billed for the job."""
        return float(self._service.job(job_id).usage())

    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]:
        from qiskit_ibm_runtime.executor_sampler import Sampler

        info = {
            "device": self.device.name,
            "primitive": "sampler",
            "circuits": len(circuits),
            "shots": shots,
            "seed": seed,
        }

        def submit() -> Any:
            return self._submit(Sampler, self._isa(circuits, seed), seed, shots=shots)

        return self.collect(self._job(info, journal, submit), journal, shots=shots)

    def collect(
        self, job_id: str, journal: JobJournal | None = None, *, shots: int | None = None
    ) -> list[SampleResult]:
        """Outcomes of a sampler job submitted earlier, fetched by id (waits until it ends),
        each shot's bitstring in the order the device measured them; `journal` is told the
        job's usage and execution spans."""
        result = self._result(job_id)
        self._finished(job_id, result, journal)
        return _sample_results(result, job_id, shots)

    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
        journal: JobJournal | None,
    ) -> np.ndarray:
        from qiskit_ibm_runtime.executor_estimator import Estimator

        groups = _runs_of_one_circuit(circuits)
        info = {
            "device": self.device.name,
            "primitive": "estimator",
            "circuits": len(circuits),
            "pubs": len(groups),
            "precision": precision,
            "seed": seed,
        }

        def submit() -> Any:
            isa = self._isa([strip_final_measurements(circuits[g[0]]) for g in groups], seed)
            pubs = [
                (c, [observables[i].apply_layout(c.layout) for i in group])
                for c, group in zip(isa, groups, strict=True)
            ]
            return self._submit(Estimator, pubs, seed, precision=precision)

        return self.collect_estimates(self._job(info, journal, submit), journal)

    def collect_estimates(self, job_id: str, journal: JobJournal | None = None) -> np.ndarray:
        """Expectation values of an estimator job submitted earlier, fetched by id (waits
        until it ends), one per (circuit, observable) pair in submission order: each PUB's
        observables in turn; `journal` is told the job's usage and execution spans."""
        result = self._result(job_id)
        self._finished(job_id, result, journal)
        return np.concatenate([np.ravel(pub.data.evs) for pub in result])


def _run(primitive: type, mode: Any, options: dict[str, Any], pubs: list[Any], run: Any) -> Any:
    """Submit; what the runtime's client-side preparation refuses (twirling it cannot close
    on some qubit, options it rejects) is one line naming the primitive, before any job."""
    from qiskit.transpiler.exceptions import TranspilerError
    from samplomatic.exceptions import BuildError

    try:
        return primitive(mode=mode, options=options).run(pubs, **run)
    except (ValueError, BuildError, TranspilerError) as err:  # IBMInputValueError is a ValueError
        name = f"{primitive.__module__.rsplit('.', 2)[-2]}.{primitive.__name__}"
        raise CapabilityError(f"the runtime's {name} refused the request: {err}") from err


def _sample_results(result: Any, job_id: str, shots: int | None) -> list[SampleResult]:
    """One SampleResult per PUB: counts and per-shot memory of all registers joined, the
    first `shots` of them (twirling rounds a PUB's shots up to whole randomizations: 200
    asked run as 4 × 64; None keeps all)."""
    out = []
    for pub in result:
        memory = tuple(pub.join_data().get_bitstrings()[:shots])
        out.append(SampleResult(dict(Counter(memory)), len(memory), job_id, memory))
    return out


def _spans(result: Any) -> list[list[str]]:
    """[start, stop] (ISO 8601, UTC) of each chunk the executor ran the job in, from the
    result's metadata (a dataclass fresh from the runtime, a mapping once stored)."""
    executor = result.metadata.get("executor")
    chunks = getattr(executor, "chunk_timing", None)
    if chunks is None and isinstance(executor, dict):
        chunks = executor.get("chunk_timing")
    spans = []
    for chunk in chunks or ():
        start, stop = (
            chunk[k] if isinstance(chunk, dict) else getattr(chunk, k) for k in ("start", "stop")
        )
        spans.append([_iso(start), _iso(stop)])
    return spans


def _iso(moment: Any) -> str:
    return moment.isoformat() if hasattr(moment, "isoformat") else str(moment)


def _runs_of_one_circuit(circuits: list[QuantumCircuit]) -> list[list[int]]:
    """Indices of `circuits` in runs of the same circuit object, in order: each run is one
    estimator PUB (the circuit and an array of observables), so a circuit measured for
    several observables is transpiled once and executed once, its commuting observables
    grouped by the estimator, as IBM users write `(circuit, [obs, ...])`."""
    groups: list[list[int]] = []
    for i, circuit in enumerate(circuits):
        if groups and circuits[groups[-1][0]] is circuit:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups
