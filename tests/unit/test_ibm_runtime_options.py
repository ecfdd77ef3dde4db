"""The IBM code path's run-wide Batch, initial layout and error-suppression options, on the
FakeBrisbane snapshot in runtime local mode."""

from __future__ import annotations

import pytest
from qiskit import QuantumCircuit

from substrates.backends.errors import CapabilityError
from substrates.backends.registry import create_backend
from substrates.datasets.quantum.generators import bell


def _fake(**options):
    return create_backend("quantum.ibm_fake", {"device": "fake_brisbane", **options})


def _journal() -> tuple[list[dict], object]:
    jobs: list[dict] = []
    return jobs, lambda job_id, info: jobs.append({"job_id": job_id, **info})


def test_one_batch_is_held_across_calls_inside_a_session() -> None:
    backend = _fake()
    jobs, journal = _journal()
    with backend.session():
        for seed in (1, 2, 3):
            backend.sample([bell()], shots=50, seed=seed, journal=journal)
    assert [job["mode"] for job in jobs] == [1, 1, 1] and backend.modes_opened == 1
    backend.sample([bell()], shots=50, seed=4, journal=journal)  # outside: a Batch per call
    backend.sample([bell()], shots=50, seed=5, journal=journal)
    assert [job["mode"] for job in jobs[3:]] == [2, 3]


def test_a_session_is_closed_when_the_block_fails() -> None:
    backend = _fake(execution="session")
    with pytest.raises(RuntimeError, match="interrupted"), backend.session():
        backend.sample([bell()], shots=20, seed=1)
        held = backend._held[0]
        raise RuntimeError("interrupted")
    assert backend._held is None and held is not None
    with backend.session():  # a new block opens a new one
        backend.sample([bell()], shots=20, seed=1)
    assert backend.modes_opened == 2


def test_initial_layout_places_the_circuit_and_is_checked() -> None:
    backend = _fake(initial_layout=[7, 8])
    (mapped,) = backend.compiled([bell()])
    assert mapped.layout.initial_index_layout()[:2] == [7, 8]
    with pytest.raises(CapabilityError, match="initial_layout places 2"):
        backend.sample([QuantumCircuit(3, 3)], shots=10)
    with pytest.raises(CapabilityError, match="initial_layout names qubit 500"):
        _fake(initial_layout=[0, 500]).sample([bell()], shots=10)
    with pytest.raises(ValueError, match="distinct device qubits"):
        _fake(initial_layout=[3, 3])


def test_error_suppression_options_reach_the_primitives_and_the_record() -> None:
    backend = _fake(dynamical_decoupling="XY4", twirling=True, resilience_level=1,
                    measure_mitigation=True, max_execution_time_s=60)  # fmt: skip
    sampler = backend._primitive_options(None, "sampler")
    estimator = backend._primitive_options(None, "estimator")
    assert sampler == {
        "max_execution_time": 60,
        "dynamical_decoupling": {"enable": True, "sequence_type": "XY4"},
        "twirling": {"enable_gates": True, "enable_measure": True},
    }
    assert estimator == {**sampler, "resilience_level": 1,
                         "resilience": {"measure_mitigation": True}}  # fmt: skip
    record = backend.to_dict()["options"]
    assert record["dynamical_decoupling"] == "XY4" and record["resilience_level"] == 1
    (result,) = backend.sample([bell()], shots=200, seed=3)  # the runtime accepts them
    assert sum(result.counts.values()) == 200
    with pytest.raises(ValueError):
        _fake(dynamical_decoupling="XYZ")
