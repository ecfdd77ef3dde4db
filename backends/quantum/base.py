"""The quantum interface: Qiskit circuits in; counts, exact probabilities, expectation values out.

Bitstrings follow Qiskit: classical bit 0 is the rightmost character, all registers
joined without spaces.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...errors import CapabilityError
from ..base import Backend, Capabilities
from .dynamic import exact_form
from .seeds import MAX_SEED

if TYPE_CHECKING:
    from qiskit import QuantumCircuit
    from qiskit.primitives import PrimitiveResult
    from qiskit.primitives.containers import EstimatorPubLike, SamplerPubLike
    from qiskit.quantum_info import SparsePauliOp

JobJournal = Callable[[str, Mapping[str, object]], None]
"""Called with (job id, metadata) right after a job is submitted, before waiting on it. A
journal that also has `replay(metadata) -> job id | None` may hand back a job an earlier,
interrupted execution submitted for the same request: hardware backends then collect that
job instead of submitting again; one with `finished(job id, metadata)` is told what an ended
job reports (IBM: `usage_s`, QPU seconds billed, and `execution_spans`)."""


@dataclass(frozen=True)
class QuantumCapabilities(Capabilities):
    """Limits of a quantum backend.

    max_qubits: widest circuit it runs (None: known only once a device is chosen).
    exact: whether exact probabilities and exact expectation values are available.
    max_shots: most shots per circuit (None: unlimited).
    """

    max_qubits: int | None
    exact: bool
    max_shots: int | None = None


@dataclass(frozen=True)
class SampleResult:
    """Measured outcomes of one circuit: bitstring -> count, summing to `shots`.

    memory: each shot's bitstring in the order the device measured them, where the backend
    gives them (IBM devices and their snapshots); None where it gives counts only.
    """

    counts: dict[str, int]
    shots: int
    job_id: str | None = None
    memory: tuple[str, ...] | None = field(default=None, repr=False)

    def probabilities(self) -> dict[str, float]:
        """Relative frequencies."""
        return {k: v / self.shots for k, v in self.counts.items()}


class QuantumBackend(Backend):
    """Runs Qiskit circuits: the backend half of Qiskit's backend/primitive split."""

    substrate: ClassVar[str] = "quantum"
    extra: ClassVar[str] = "quantum"

    @property
    @abstractmethod
    def capabilities(self) -> QuantumCapabilities: ...

    def validate(
        self,
        circuits: Sequence[QuantumCircuit],
        *,
        shots: int | None = None,
        exact: bool = False,
    ) -> None:
        """Raise CapabilityError if this request exceeds the backend; spends no compute."""
        caps = self.capabilities
        if not circuits:
            raise CapabilityError("no circuits given")
        for circuit in circuits:
            if (reason := _circuit_refusal(circuit, sampling=shots is not None)) is not None:
                raise CapabilityError(f"circuit {circuit.name!r}: {reason}")
            if circuit.parameters:
                names = ", ".join(sorted(p.name for p in circuit.parameters))
                raise CapabilityError(
                    f"circuit {circuit.name!r} has unbound parameters: {names}; assign values "
                    "first (circuit.assign_parameters)"
                )
            if caps.max_qubits is not None and circuit.num_qubits > caps.max_qubits:
                raise CapabilityError(
                    f"circuit {circuit.name!r} has {circuit.num_qubits} qubits; "
                    f"{self.name} allows at most {caps.max_qubits} with these options"
                )
        if shots is not None:
            if shots < 1:
                raise CapabilityError(f"shots must be at least 1, got {shots}")
            if caps.max_shots is not None and shots > caps.max_shots:
                raise CapabilityError(f"{self.name} allows at most {caps.max_shots} shots")
        if exact and not caps.exact:
            raise CapabilityError(
                f"{self.name} with these options gives no exact results; sample with shots instead"
            )
        if exact:
            for circuit in circuits:
                if (reason := self._exact_refusal(circuit)) is not None:
                    raise CapabilityError(f"circuit {circuit.name!r}: {reason}")

    def _exact_refusal(self, circuit: QuantumCircuit) -> str | None:
        """Why this backend cannot give exact results for this circuit (None: it can)."""
        return None

    def sample(
        self,
        circuits: Sequence[QuantumCircuit],
        *,
        shots: int,
        seed: int | None = None,
        journal: JobJournal | None = None,
    ) -> list[SampleResult]:
        """Measure each circuit `shots` times; `seed` fixes the simulator's randomness.

        Each circuit gets its own stream derived from `seed` (0 … 2³² − 1): identical
        circuits in one batch are sampled independently, the batch is reproducible.
        """
        circuits = list(circuits)
        _check_seed(seed)
        self.validate(circuits, shots=shots)
        return self._sample(circuits, shots, seed, journal)

    def probabilities(self, circuits: Sequence[QuantumCircuit]) -> list[dict[str, float]]:
        """Exact outcome distribution of each circuit's measurements (exact backends only)."""
        circuits = [exact_form(c) for c in circuits]  # a leading initialize: a gate
        self.validate(circuits, exact=True)
        return self._probabilities(circuits)

    def estimate(
        self,
        circuits: Sequence[QuantumCircuit],
        observables: Sequence[SparsePauliOp | str],
        *,
        precision: float = 0.0,
        seed: int | None = None,
        journal: JobJournal | None = None,
    ) -> np.ndarray:
        """Expectation value of observables[i] in the state circuits[i] prepares.

        Observables are Pauli sums (Qiskit labels: qubit 0 rightmost). precision=0 asks
        for exact values (exact backends only); otherwise the target standard error.
        Job-based backends record the estimator job in `journal` before waiting on it.
        """
        circuits = list(circuits)
        if len(observables) != len(circuits):
            raise CapabilityError(
                f"{len(circuits)} circuits but {len(observables)} observables; pair them one to one"
            )
        if precision < 0:
            raise CapabilityError(f"precision must be >= 0, got {precision}")
        _check_seed(seed)
        if precision == 0:
            circuits = [exact_form(c) for c in circuits]  # a leading initialize: a gate
        self.validate(circuits, exact=precision == 0)
        from qiskit.quantum_info import SparsePauliOp

        paulis = [SparsePauliOp(o) if isinstance(o, str) else o for o in observables]
        for circuit, pauli in zip(circuits, paulis, strict=True):
            if pauli.num_qubits != circuit.num_qubits:
                raise CapabilityError(
                    f"observable acts on {pauli.num_qubits} qubits, circuit {circuit.name!r} "
                    f"has {circuit.num_qubits}"
                )
        return self._estimate(circuits, paulis, precision, seed, journal)

    def run_estimator(
        self,
        pubs: Iterable[EstimatorPubLike],
        *,
        precision: float = 0.0,
        seed: int | None = None,
        journal: JobJournal | None = None,
    ) -> PrimitiveResult:
        """Qiskit EstimatorV2 semantics on this backend: pubs (circuit, observables[,
        parameter values[, precision]]) broadcast as in Qiskit; a PrimitiveResult whose
        PubResults hold `evs` and `stds`. Job-based backends record each estimator job in
        `journal` before waiting on it, as `run_sampler` does. See
        `backends.quantum.primitives`."""
        from .primitives import run_estimator

        return run_estimator(self, pubs, precision=precision, seed=seed, journal=journal)

    def run_sampler(
        self,
        pubs: Iterable[SamplerPubLike],
        *,
        shots: int = 1024,
        seed: int | None = None,
        journal: JobJournal | None = None,
    ) -> PrimitiveResult:
        """Qiskit SamplerV2 semantics on this backend: pubs (circuit[, parameter values[,
        shots]]); a PrimitiveResult whose PubResults hold one BitArray per register."""
        from .primitives import run_sampler

        return run_sampler(self, pubs, shots=shots, seed=seed, journal=journal)

    @contextmanager
    def session(self) -> Iterator[QuantumBackend]:
        """Hold what the backend would otherwise open per call across every call inside the
        block: one IBM Session or Batch for a whole run, closed when the block ends, also on
        an error or an interruption. Other backends hold nothing; nesting is harmless.

        Example:
            >>> import substrates
            >>> backend = substrates.load_backend("aer_statevector")
            >>> with backend.session():
            ...     pass  # every sample/estimate call here shares one IBM Batch
        """
        yield self

    def compiled(self, circuits: Sequence[QuantumCircuit]) -> list[QuantumCircuit]:
        """The circuits as this backend executes them (mapped to a device where it has one)."""
        circuits = list(circuits)
        self.validate(circuits)
        return self._compiled(circuits)

    def _compiled(self, circuits: list[QuantumCircuit]) -> list[QuantumCircuit]:
        return circuits

    def collect(
        self, job_id: str, journal: JobJournal | None = None, *, shots: int | None = None
    ) -> list[SampleResult]:
        """Counts of a sampler job submitted earlier, fetched by id (`journal` is told what
        the ended job reports; `shots`: the shots asked, where a device may run more, as
        IBM's twirling rounds up to whole randomizations); only job-based backends have
        jobs."""
        raise CapabilityError(f"{self.name} runs synchronously; it has no jobs to collect")

    def collect_estimates(self, job_id: str, journal: JobJournal | None = None) -> np.ndarray:
        """Expectation values of an estimator job submitted earlier, fetched by id, in the
        order of its circuits (`journal` is told what the ended job reports); only job-based
        backends have jobs."""
        raise CapabilityError(f"{self.name} runs synchronously; it has no jobs to collect")

    @abstractmethod
    def _sample(
        self,
        circuits: list[QuantumCircuit],
        shots: int,
        seed: int | None,
        journal: JobJournal | None,
    ) -> list[SampleResult]: ...

    @abstractmethod
    def _estimate(
        self,
        circuits: list[QuantumCircuit],
        observables: list[SparsePauliOp],
        precision: float,
        seed: int | None,
        journal: JobJournal | None,
    ) -> np.ndarray: ...

    def _probabilities(self, circuits: list[QuantumCircuit]) -> list[dict[str, float]]:
        raise CapabilityError(f"{self.name} gives no exact probabilities")


def _operations(circuit: QuantumCircuit) -> Iterator[tuple[str, Sequence[object]]]:
    """(name, params) of every operation, inside control-flow blocks too."""
    for instruction in circuit.data:
        operation = instruction.operation
        blocks = getattr(operation, "blocks", ())
        yield operation.name, () if blocks else operation.params
        for block in blocks:
            yield from _operations(block)


def _circuit_refusal(circuit: QuantumCircuit, sampling: bool) -> str | None:
    """Why no backend can run `circuit` as asked (None: nothing wrong): a non-finite gate
    parameter, or nothing to measure when sampling."""
    measured = False
    # A gate repeated shares one parameter list: checked once. The lists are held, so
    # that no id is reused by a list made later (Rust gates make one on each read).
    checked: dict[int, Sequence[object]] = {}
    for name, params in _operations(circuit):
        measured = measured or name == "measure"
        if not params or id(params) in checked:
            continue
        checked[id(params)] = params
        if len(params) > 4:  # a diagonal's 2ⁿ entries: checked at once where all are numbers
            values = np.asarray(params)
            if values.dtype.kind in "iufc" and np.isfinite(values).all():
                continue
        for value in params:
            if isinstance(value, int | float | complex | np.number) and not np.isfinite(value):
                return f"gate {name!r} has the non-finite parameter {value}"
    if sampling and not measured:
        what = "has no operations" if not circuit.data else "measures nothing"
        return f"{what}: sampling needs measurements (add `measure`, or run `estimate`)"
    return None


def _check_seed(seed: int | None) -> None:
    if seed is not None and not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise CapabilityError(f"seed must be an integer in 0 … {MAX_SEED}, got {seed!r}")
