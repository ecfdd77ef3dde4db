"""The shipped quantum suite (substrates.testing.quantum) on every shipped quantum config,
plus the GPU tier's code path on the CPU."""

from __future__ import annotations

import pytest

from substrates.adapters.config import load_config
from substrates.backends.registry import names
from substrates.testing.quantum import TestQuantumBackend

from .backends import CASES, GPU_ON_CPU, QUANTUM_CONFIGS, build

__all__ = ["TestQuantumBackend"]


@pytest.fixture(scope="module", params=CASES)
def backend(request: pytest.FixtureRequest):
    return build(request.param)


def test_every_registered_backend_has_a_shipped_config() -> None:
    covered = {load_config(name).config.backend for name in QUANTUM_CONFIGS}
    assert set(names("quantum")) <= covered


NOISELESS_EXACT = [
    "aer_statevector",
    "aer_mps",
    "pennylane_default",
    "pennylane_lightning",
    GPU_ON_CPU,
]


@pytest.mark.parametrize("case", NOISELESS_EXACT)
def test_shipped_noiseless_backends_compute_dynamic_circuits(case: str) -> None:
    """The suite lets a backend refuse a dynamic circuit; ours must not."""
    from substrates.testing.deferred import deferred_distribution
    from substrates.testing.dynamic_circuits import DYNAMIC_CASES

    backend = build(case)
    for make in DYNAMIC_CASES.values():
        circuit = make()
        (probs,) = backend.probabilities([circuit])
        want = deferred_distribution(circuit)
        assert probs.keys() == want.keys(), circuit.name
        assert all(abs(probs[k] - want[k]) < 1e-9 for k in want), circuit.name
