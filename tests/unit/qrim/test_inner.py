"""Quantum minimum finding against the exhaustive minimum, on several backends."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.errors import CapabilityError
from substrates.models.qrim import ExhaustiveMin, QuantumMinimumFinder


def _random_tables(size: int, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=size) for _ in range(count)]


@pytest.mark.parametrize("size", [2, 4, 16, 64, 256])
def test_default_finds_the_true_minimum_in_at_least_95_percent(size: int) -> None:
    tables = _random_tables(size, 300 if size < 256 else 100, seed=size)
    qrim = QuantumMinimumFinder(create_backend("quantum.aer"), seed=7)
    results = qrim.argmin_many(tables)
    exhaustive = ExhaustiveMin().argmin_many(tables)
    found = [r.value == e.value for r, e in zip(results, exhaustive, strict=True)]
    assert np.mean(found) >= 0.95
    for result, table in zip(results, tables, strict=True):
        assert result.value == table[result.index]  # the value is the member's, never invented


def test_queries_grow_like_sqrt_of_the_set() -> None:
    means = []
    for size in (64, 1024):
        results = QuantumMinimumFinder(create_backend("quantum.aer"), seed=3).argmin_many(
            _random_tables(size, 40, seed=1)
        )
        means.append(np.mean([r.oracle_queries for r in results]))
    exponent = np.log(means[1] / means[0]) / np.log(1024 / 64)
    assert 0.3 < exponent < 0.75
    assert means[1] < 1024 / 3  # far below exhaustive search at |U| = 1024


def test_gate_oracle_and_pennylane_backend_find_minima() -> None:
    tables = _random_tables(8, 20, seed=5)
    for backend, construction in [
        (create_backend("quantum.aer"), "gates"),
        (create_backend("quantum.pennylane", {"device": "lightning.qubit"}), "diagonal"),
    ]:
        results = QuantumMinimumFinder(backend, construction, seed=2).argmin_many(tables)
        hits = [r.index == int(np.argmin(t)) for r, t in zip(results, tables, strict=True)]
        assert np.mean(hits) >= 0.9, backend.name


def test_sampling_backend_draws_its_measurements_from_shots() -> None:
    backend = create_backend("quantum.ibm_fake", {"device": "fake_brisbane"})
    qrim = QuantumMinimumFinder(backend, "diagonal", seed=1, shots=256)
    tables = _random_tables(4, 6, seed=9)
    results = qrim.argmin_many(tables)
    assert qrim.use.shots == 256 * qrim.use.circuits > 0
    hits = [r.index == int(np.argmin(t)) for r, t in zip(results, tables, strict=True)]
    assert np.mean(hits) >= 0.8  # noise slows the search; evaluation keeps it honest


def test_repetitions_never_cost_less() -> None:
    tables = _random_tables(64, 50, seed=2)
    backend = create_backend("quantum.aer")
    one = QuantumMinimumFinder(backend, seed=1, repetitions=1).argmin_many(tables)
    three = QuantumMinimumFinder(backend, seed=1, repetitions=3).argmin_many(tables)
    assert sum(r.oracle_queries for r in three) > sum(r.oracle_queries for r in one)
    assert all(r.value == min(t) for r, t in zip(three, tables, strict=True))


def test_refuses_sets_that_are_not_powers_of_two_or_too_wide() -> None:
    qrim = QuantumMinimumFinder(create_backend("quantum.aer", {"noise_model": "fake_manila"}))
    with pytest.raises(CapabilityError, match="not a power of two"):
        qrim.argmin(np.zeros(12))
    gates = QuantumMinimumFinder(
        create_backend("quantum.aer", {"noise_model": "fake_manila"}), "gates"
    )
    with pytest.raises(CapabilityError, match="needs 7 qubits"):
        gates.argmin(np.zeros(8))


def test_every_search_replays_from_its_trace() -> None:
    """The recorded start and measured indices, with the table's values, give back each
    run's outcome: the search used nothing else."""
    from dataclasses import replace

    from substrates.models.qrim.search import TOLERANCE, replay_search

    tables = _random_tables(64, 30, seed=12)
    results = QuantumMinimumFinder(create_backend("quantum.aer"), seed=2).argmin_many(tables)
    for table, result in zip(tables, results, strict=True):
        (run,) = result.searches
        again = replay_search(len(table), table.__getitem__, run.start, run.steps)
        assert again == run
        assert run.doubt <= TOLERANCE
    run = results[0].searches[0]
    tampered = list(run.steps)
    tampered[0] = replace(tampered[0], threshold_index=(tampered[0].threshold_index + 1) % 64)
    with pytest.raises(ValueError, match="departs from the search"):
        replay_search(64, tables[0].__getitem__, run.start, tampered)
    with pytest.raises(ValueError, match="continues after the search ended"):
        replay_search(64, tables[0].__getitem__, run.start, [*run.steps, run.steps[-1]])
