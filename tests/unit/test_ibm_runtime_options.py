"""The IBM code path's run-wide Batch, initial layout and error-suppression options, on the
FakeBrisbane snapshot in runtime local mode."""

from __future__ import annotations

import pytest
from qiskit import QuantumCircuit

from substrates.backends.registry import create_backend
from substrates.datasets.quantum.generators import bell
from substrates.errors import CapabilityError


def _fake(**options):
    """The FakeBrisbane snapshot (127 qubits: where initial layouts have room)."""
    return create_backend("quantum.ibm_fake", {"device": "fake_brisbane", **options})


def _manila(**options):
    """The FakeManila snapshot (5 qubits: fast to simulate)."""
    return create_backend("quantum.ibm_fake", {"device": "fake_manila", **options})


def _journal() -> tuple[list[dict], object]:
    jobs: list[dict] = []
    return jobs, lambda job_id, info: jobs.append({"job_id": job_id, **info})


def test_one_batch_is_held_across_calls_inside_a_session() -> None:
    backend = _manila()
    jobs, journal = _journal()
    with backend.session():
        for seed in (1, 2, 3):
            backend.sample([bell()], shots=50, seed=seed, journal=journal)
    held = {job["session_id"] for job in jobs}
    assert len(held) == 1 and backend.modes_opened == 1 and None not in held
    backend.sample([bell()], shots=50, seed=4, journal=journal)  # outside: a Batch per call
    backend.sample([bell()], shots=50, seed=5, journal=journal)
    later = [job["session_id"] for job in jobs[3:]]
    assert len({*later, *held}) == 3 and backend.modes_opened == 3
    plain = _manila(execution="job")
    plain.sample([bell()], shots=50, seed=6, journal=journal)
    assert jobs[-1]["session_id"] is None  # a plain job belongs to no Batch


def test_a_session_is_closed_when_the_block_fails() -> None:
    backend = _manila(execution="session")
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
    three = QuantumCircuit(3, 3)
    three.measure(range(3), range(3))
    with pytest.raises(CapabilityError, match="initial_layout places 2"):
        backend.sample([three], shots=10)
    with pytest.raises(CapabilityError, match="initial_layout names qubit 500"):
        _fake(initial_layout=[0, 500]).sample([bell()], shots=10)
    with pytest.raises(ValueError, match="distinct device qubits"):
        _fake(initial_layout=[3, 3])


def test_error_suppression_options_reach_the_primitives_and_the_record() -> None:
    backend = _fake(
        dynamical_decoupling="XY4",
        twirling=True,
        resilience_level=1,
        measure_mitigation=True,
        max_execution_time_s=60,
    )
    sampler = backend._primitive_options(None, "sampler")
    estimator = backend._primitive_options(None, "estimator")
    assert sampler == {
        "max_execution_time": 60,
        "dynamical_decoupling": {"enable": True, "sequence_type": "XY4"},
        "twirling": {"enable_gates": True, "enable_measure": True},
    }
    assert estimator == {
        **sampler,
        "resilience_level": 1,
        "resilience": {"measure_mitigation": True},
    }
    zne = _fake(resilience_level=0, zne_mitigation=True)._primitive_options(None, "estimator")
    assert zne == {"resilience_level": 0, "resilience": {"zne_mitigation": True}}
    with pytest.raises(ValueError, match="pec_mitigation learns each layer"):
        _fake(pec_mitigation=True)
    record = backend.to_dict()["options"]
    assert record["dynamical_decoupling"] == "XY4" and record["resilience_level"] == 1
    (result,) = backend.sample([bell()], shots=200, seed=3)  # the runtime accepts them
    assert sum(result.counts.values()) == result.shots == len(result.memory) == 200  # of 4 × 64
    with pytest.raises(ValueError):
        _fake(dynamical_decoupling="XYZ")


@pytest.mark.parametrize(
    ("options", "named"),
    [({"twirling": True}, "twirling"), ({"dynamical_decoupling": "XX"}, "dynamical_decoupling")],
)
def test_suppression_the_primitives_refuse_with_control_flow_is_refused_first(
    options, named
) -> None:
    from substrates.testing.dynamic_circuits import conditional_x

    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila", **options})
    with pytest.raises(CapabilityError, match=f"'conditional_x' has control flow.*{named}"):
        backend.sample([conditional_x()], shots=10)
    mid = QuantumCircuit(2, 3)  # a mid-circuit measurement is accepted
    mid.h(0)
    mid.measure(0, 0)
    mid.cx(0, 1)
    mid.measure([0, 1], [1, 2])
    (result,) = backend.sample([mid], shots=100, seed=2)
    assert result.shots == 100 and len(result.memory) == 100
    agreeing = result.counts.get("000", 0) + result.counts.get("111", 0)
    assert agreeing > 80  # all three bits copy the first outcome but for the noise
    twice = QuantumCircuit(1, 1)  # what the runtime refuses after us: one line, named
    twice.measure(0, 0)
    twice.measure(0, 0)
    if "twirling" in options:
        with pytest.raises(
            CapabilityError, match=r"executor_sampler\.Sampler refused.*same classical bit"
        ):
            backend.sample([twice], shots=10)


def _flipped() -> QuantumCircuit:
    """X on qubit 0 of two: <ZI> = +1, <IZ> = -1 exactly; readout errors pull both in."""
    circuit = QuantumCircuit(2, name="flipped")
    circuit.x(0)
    return circuit


def test_estimator_jobs_are_journalled_and_collected_by_id(local_job_store) -> None:
    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    jobs, journal = _journal()
    values = backend.estimate(
        [_flipped(), _flipped()], ["ZI", "IZ"], precision=0.02, seed=5, journal=journal
    )
    (job,) = jobs
    assert job["primitive"] == "estimator" and job["circuits"] == 2 and job["precision"] == 0.02
    assert job["pubs"] == 2  # two circuit objects: a PUB each
    assert values[0] > 0.8 and values[1] < -0.8
    again = create_backend("quantum.ibm_fake", {"device": "fake_manila"})  # a later process
    assert list(again.collect_estimates(job["job_id"])) == list(values)


def test_run_estimator_journals_its_job_as_run_sampler_does(local_job_store) -> None:
    """The primitive interface IBM users reach first: its job is recorded before the wait
    and collected by id in a later process, with the values the PubResult held."""
    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    jobs, journal = _journal()
    (pub,) = backend.run_estimator(
        [(_flipped(), ["ZI", "IZ"])], precision=0.02, seed=5, journal=journal
    )
    (job,) = jobs
    assert job["primitive"] == "estimator" and job["precision"] == 0.02
    assert job["circuits"] == 2 and job["pubs"] == 1  # one circuit, an array of observables
    assert pub.data.evs[0] > 0.8 and pub.data.evs[1] < -0.8
    again = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    assert list(again.collect_estimates(job["job_id"])) == list(pub.data.evs)


def test_one_circuit_for_three_observables_is_one_pub_transpiled_once(
    local_job_store, monkeypatch
) -> None:
    """`run estimate --observables ZZZ,ZII,IIZ` on one circuit: one PUB of three
    observables (one execution), not three transpiled copies; values in pair order."""
    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    circuit = QuantumCircuit(3, name="x0")
    circuit.x(0)
    transpiled = []
    isa = backend._isa
    monkeypatch.setattr(
        backend, "_isa", lambda cs, seed: transpiled.append(len(cs)) or isa(cs, seed)
    )
    jobs, journal = _journal()
    values = backend.estimate(
        [circuit] * 3, ["ZZZ", "ZII", "IIZ"], precision=0.02, seed=3, journal=journal
    )
    (job,) = jobs
    assert transpiled == [1] and job["pubs"] == 1 and job["circuits"] == 3
    (pub,) = backend._result(job["job_id"])
    assert pub.data.evs.shape == (3,)
    assert values[0] < -0.8 and values[1] > 0.8 and values[2] < -0.8  # -1, +1, -1 exactly


def test_mitigation_asked_of_a_fake_device_is_applied(local_job_store) -> None:
    """The executor Estimator applies TREX on this machine, in local mode too, so it must
    bring readout-damped values closer to the exact ±1."""
    circuits, labels = [_flipped(), _flipped()], ["ZI", "IZ"]
    exact = [1.0, -1.0]
    errors = {}
    for level in (0, 1):
        backend = create_backend(
            "quantum.ibm_fake", {"device": "fake_manila", "resilience_level": level}
        )
        values = backend.estimate(circuits, labels, precision=0.005, seed=11)
        errors[level] = sum(abs(v - e) for v, e in zip(values, exact, strict=True))
    assert errors[0] > 0.02  # the snapshot's readout error is visible unmitigated
    assert errors[1] < errors[0] / 2, errors


def test_an_interrupted_estimator_request_is_replayed(tmp_path, local_job_store) -> None:
    from substrates.adapters.runs.folder import RunFolder
    from substrates.adapters.runs.journal import JobLog

    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    first = JobLog(RunFolder.create(tmp_path, "estimate"))
    values = backend.estimate([bell()], ["ZZ"], precision=0.02, seed=1, journal=first)
    stored = sorted(p.name for p in local_job_store.iterdir())
    replay = JobLog(RunFolder.create(tmp_path, "estimate"), replay=first.jobs)
    assert list(backend.estimate([bell()], ["ZZ"], precision=0.02, seed=1, journal=replay)) == list(
        values
    )
    assert sorted(p.name for p in local_job_store.iterdir()) == stored
    assert replay.jobs[0]["replayed"] and replay.jobs[0]["job_id"] == first.jobs[0]["job_id"]


def test_run_sampler_is_one_job_whatever_the_shots_keeping_the_device_order(
    local_job_store,
) -> None:
    """PUBs of 100 and 300 shots: one sampler job of 300 (the executor Sampler runs one
    count per job); each PUB holds the first shots of its circuit in the order the job
    returned them, not a reshuffle of counts."""
    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    ghz = QuantumCircuit(3, name="ghz")
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.measure_all()
    jobs, journal = _journal()
    small, large = backend.run_sampler(
        [(bell(), None, 100), (ghz, None, 300)], seed=9, journal=journal
    )
    (job,) = jobs
    assert job["primitive"] == "sampler" and job["shots"] == 300 and job["circuits"] == 2
    stored = backend.collect(job["job_id"])  # the job as the device returned it
    assert [r.shots for r in stored] == [300, 300]
    first = small.data.meas.get_bitstrings()
    assert small.data.meas.num_shots == 100 and first == list(stored[0].memory[:100])
    assert large.data.meas.get_bitstrings() == list(stored[1].memory)


def test_the_journal_records_session_usage_and_execution_spans(tmp_path, local_job_store) -> None:
    """jobs.json carries the Batch's id with each job when it is submitted, and IBM's usage
    (QPU seconds; local mode bills none) and execution spans once the job has ended."""
    from substrates.adapters.runs.folder import RunFolder
    from substrates.adapters.runs.journal import JobLog

    backend = create_backend("quantum.ibm_fake", {"device": "fake_manila"})
    log = JobLog(RunFolder.create(tmp_path, "sample"))
    with backend.session():
        backend.sample([bell()], shots=20, seed=1, journal=log)
        backend.estimate([bell()], ["ZZ"], precision=0.1, seed=1, journal=log)
    sampler, estimator = log.jobs
    assert sampler["session_id"] == estimator["session_id"] and sampler["session_id"]
    for job in log.jobs:
        assert job["usage_s"] == 0.0 and job["execution_spans"] == []
        assert job["finished_at"] >= job["submitted_at"]
    assert log.folder.read_record("jobs.json")["jobs"] == log.jobs


def test_execution_spans_are_read_from_the_executor_metadata() -> None:
    """The spans as the runtime returns them (its Metadata of ChunkSpans) and as our local
    store gives them back (mappings): [start, stop] in ISO 8601, UTC."""
    from datetime import UTC, datetime

    from qiskit.primitives import PrimitiveResult
    from qiskit_ibm_runtime.results.quantum_program import ChunkSpan, Metadata

    from substrates.backends.quantum.ibm import _spans

    start, stop = (
        datetime(2026, 12, 6, 9, 0, 1, tzinfo=UTC),
        datetime(2026, 12, 6, 9, 0, 4, tzinfo=UTC),
    )
    fresh = PrimitiveResult([], metadata={"executor": Metadata([ChunkSpan(start, stop, [])])})
    stored = PrimitiveResult(
        [], metadata={"executor": {"chunk_timing": [{"start": start, "stop": stop}]}}
    )
    expected = [["2026-12-06T09:00:01+00:00", "2026-12-06T09:00:04+00:00"]]
    assert _spans(fresh) == _spans(stored) == expected
    assert _spans(PrimitiveResult([], metadata={})) == []
