"""Qiskit's primitive conventions (SamplerV2, EstimatorV2) on any quantum backend.

Pubs are coerced by Qiskit's own containers (`EstimatorPub`, `SamplerPub`), so parameter
values broadcast against observables exactly as in Qiskit; every bound circuit of a call
goes to the backend in one `estimate` call per precision, or one `sample` call,
and results come back as Qiskit's `PrimitiveResult` of `PubResult`s: `data.evs` and
`data.stds` shaped like the pub, or one `BitArray` per classical register.

Example:
    >>> import numpy as np
    >>> import substrates
    >>> from qiskit import QuantumCircuit
    >>> from qiskit.circuit import Parameter
    >>> qc = QuantumCircuit(2)
    >>> _ = qc.ry(Parameter("t"), 0)
    >>> _ = qc.cx(0, 1)
    >>> backend = substrates.load_backend("aer_statevector")
    >>> (pub,) = backend.run_estimator([(qc, [["ZZ"], ["XX"]], [[0.0], [np.pi / 2]])])
    >>> np.round(pub.data.evs, 6)
    array([[1., 1.],
           [0., 1.]])
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from qiskit.primitives import PrimitiveResult

    from .base import JobJournal, QuantumBackend, SampleResult


def _flat_indices(shape: tuple[int, ...], target: tuple[int, ...]) -> np.ndarray:
    """For each position of `target`, the flat index into an array of `shape` that
    broadcasts there."""
    return np.broadcast_to(np.arange(int(np.prod(shape))).reshape(shape), target).reshape(-1)


def run_estimator(
    backend: QuantumBackend,
    pubs: Iterable[Any],
    *,
    precision: float = 0.0,
    seed: int | None = None,
    journal: JobJournal | None = None,
) -> PrimitiveResult:
    """EstimatorV2 semantics: pubs (circuit, observables[, parameter values[, precision]]);
    precision 0 asks for exact values (exact backends), otherwise the target standard
    error, reported as `stds`. One `estimate` call (one job on a job-based backend,
    recorded in `journal` before it is waited on) per distinct precision."""
    from qiskit.primitives import DataBin, PrimitiveResult, PubResult
    from qiskit.primitives.containers.estimator_pub import EstimatorPub
    from qiskit.quantum_info import SparsePauliOp

    coerced = [EstimatorPub.coerce(pub, precision) for pub in pubs]
    jobs: dict[float, list[tuple[int, int, Any, SparsePauliOp]]] = defaultdict(list)
    for k, pub in enumerate(coerced):
        bound = np.asarray(pub.parameter_values.bind_all(pub.circuit), dtype=object)
        observables = pub.observables.reshape(-1)
        circuit_at = _flat_indices(bound.shape, pub.shape)
        observable_at = _flat_indices(pub.observables.shape, pub.shape)
        for position, (c, o) in enumerate(zip(circuit_at, observable_at, strict=True)):
            pauli = SparsePauliOp.from_list(list(observables[int(o)].items()))
            jobs[float(pub.precision)].append((k, position, bound.reshape(-1)[c], pauli))
    values = [np.zeros(int(np.prod(pub.shape))) for pub in coerced]
    for target, items in jobs.items():
        evs = backend.estimate(
            [i[2] for i in items],
            [i[3] for i in items],
            precision=target,
            seed=seed,
            journal=journal,
        )
        for (k, position, _, _), value in zip(items, evs, strict=True):
            values[k][position] = value
    return PrimitiveResult(
        [
            PubResult(
                DataBin(
                    evs=v.reshape(pub.shape),
                    stds=np.full(pub.shape, pub.precision),
                    shape=pub.shape,
                ),
                metadata={
                    "target_precision": pub.precision,
                    "circuit_metadata": pub.circuit.metadata,
                },
            )
            for pub, v in zip(coerced, values, strict=True)
        ],
        metadata={"version": 2, "backend": backend.name},
    )


def run_sampler(
    backend: QuantumBackend,
    pubs: Iterable[Any],
    *,
    shots: int = 1024,
    seed: int | None = None,
    journal: JobJournal | None = None,
) -> PrimitiveResult:
    """SamplerV2 semantics: pubs (circuit[, parameter values[, shots]]); each result holds
    one `BitArray` per classical register, named as the register, shaped like the pub.
    The shots of all registers of a circuit are the same shots.

    One `sample` call (one job on a job-based backend, recorded in `journal` before it is
    waited on) per call, whatever the PUBs' shot counts: every circuit is measured the
    largest count and each PUB keeps its first `shots` outcomes (on hardware the smaller
    PUBs spend the extra shots' QPU time; the executor Sampler runs one count per job).
    Per-shot order is the device's where the backend keeps memory (IBM devices and their
    snapshots), else random."""
    from qiskit.primitives import BitArray, DataBin, PrimitiveResult, SamplerPubResult
    from qiskit.primitives.containers.sampler_pub import SamplerPub

    coerced = [SamplerPub.coerce(pub, shots) for pub in pubs]
    items: list[tuple[int, int, Any]] = []
    for k, pub in enumerate(coerced):
        bound = np.asarray(pub.parameter_values.bind_all(pub.circuit), dtype=object)
        items.extend((k, position, circuit) for position, circuit in enumerate(bound.reshape(-1)))
    shots_of_call = max((int(pub.shots) for pub in coerced), default=0)
    results = (
        backend.sample([i[2] for i in items], shots=shots_of_call, seed=seed, journal=journal)
        if items
        else []
    )
    rng = np.random.default_rng(seed)
    outcomes: list[dict[int, list[int]]] = [{} for _ in coerced]
    for (k, position, _), result in zip(items, results, strict=True):
        outcomes[k][position] = _first_shots(result, int(coerced[k].shots), rng)
    out = []
    for pub, by_position in zip(coerced, outcomes, strict=True):
        registers: dict[str, list[np.ndarray]] = {reg.name: [] for reg in pub.circuit.cregs}
        for position in range(int(np.prod(pub.shape))):
            joined = by_position[position]
            for reg in pub.circuit.cregs:
                bits = [pub.circuit.find_bit(b).index for b in reg]
                values = [
                    sum(((shot >> c) & 1) << j for j, c in enumerate(bits)) for shot in joined
                ]
                registers[reg.name].append(_packed(values, reg.size))
        data = {
            name: BitArray(np.stack(arrays).reshape(*pub.shape, pub.shots, -1), num_bits=reg.size)
            for (name, arrays), reg in zip(registers.items(), pub.circuit.cregs, strict=True)
        }
        out.append(
            SamplerPubResult(
                DataBin(**data, shape=pub.shape),
                metadata={"shots": pub.shots, "circuit_metadata": pub.circuit.metadata},
            )
        )
    return PrimitiveResult(out, metadata={"version": 2, "backend": backend.name})


def _first_shots(result: SampleResult, shots: int, rng: np.random.Generator) -> list[int]:
    """The first `shots` outcomes (as integers, clbit 0 the lowest bit) of a circuit
    sampled at the call's largest shot count: in the device's order where the backend
    kept per-shot memory, else a uniformly random order of the counts (the first `shots`
    of which are `shots` independent outcomes as well)."""
    if result.memory is not None:
        return [int(bits, 2) for bits in result.memory[:shots]]
    joined = [int(key, 2) for key, n in result.counts.items() for _ in range(n)]
    rng.shuffle(joined)
    return joined[:shots]


def _packed(values: list[int], num_bits: int) -> np.ndarray:
    """Outcomes as BitArray rows: big-endian bytes, the last byte holding bits 0–7."""
    width = max(1, (num_bits + 7) // 8)
    array = np.array(values, dtype=object)
    return np.array(
        [[(int(v) >> (8 * (width - 1 - b))) & 0xFF for b in range(width)] for v in array],
        dtype=np.uint8,
    ).reshape(len(values), width)
