"""Aer's density-matrix method, and single precision, against qiskit.quantum_info."""

from __future__ import annotations

import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.quantum.generators import grover
from substrates.testing.quantum import exact_distribution


@pytest.mark.parametrize(
    ("options", "tolerance"),
    [({"method": "density_matrix"}, 1e-9), ({"precision": "single"}, 1e-5)],
)
def test_ideal_probabilities_match_statevector(options: dict, tolerance: float) -> None:
    circuit = grover("0110")
    (probs,) = create_backend("quantum.aer", options).probabilities([circuit])
    reference = exact_distribution(circuit)
    for bitstring in reference.keys() | probs.keys():
        assert probs.get(bitstring, 0.0) == pytest.approx(
            reference.get(bitstring, 0.0), abs=tolerance
        )


def test_noisy_density_matrix_is_an_exact_noisy_distribution() -> None:
    backend = create_backend(
        "quantum.aer", {"method": "density_matrix", "noise_model": "fake_brisbane"}
    )
    assert backend.capabilities.exact
    circuit = grover("101")
    (probs,) = backend.probabilities([circuit])
    # Aer's noise channels are truncated numerically: the trace is 1 to ~5e-9, not 1e-12
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-6)
    ideal = exact_distribution(circuit)["101"]
    assert 0.5 < probs["101"] < ideal  # the marked item survives, damped by the device's noise
    assert len(probs) == 8  # noise reaches every outcome
