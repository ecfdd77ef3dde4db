"""Every shipped config becomes a conformance case; one that cannot run here is skipped with why."""

from __future__ import annotations

import os
from typing import ClassVar

import pytest

from substrates.adapters.config import (
    ConfigError,
    backend_from_config,
    load_config,
    shipped_configs,
)
from substrates.backends.base import Backend
from substrates.backends.quantum.aer_gpu import AerGpuBackend
from substrates.backends.quantum.base import QuantumBackend


class AerGpuCodePathOnCPU(AerGpuBackend):
    """quantum.aer_gpu exactly as shipped, with Aer's device string set to CPU."""

    aer_device: ClassVar[str] = "CPU"


def configs_of(substrate: str) -> list[str]:
    """Names of the shipped configs of one substrate."""
    return sorted(n for n in shipped_configs() if load_config(n).config.substrate == substrate)


def shipped_backend(case: str) -> Backend:
    """The backend a shipped config builds, or pytest.skip with why it cannot run here."""
    try:
        return backend_from_config(case)
    except ConfigError as err:
        pytest.skip(f"{case}: {err}")


QUANTUM_CONFIGS = configs_of("quantum")
GPU_ON_CPU = "aer_gpu[code path on CPU]"
CASES = [*QUANTUM_CONFIGS, GPU_ON_CPU]


def build(case: str) -> QuantumBackend:
    """The backend of one case, or pytest.skip with the reason it cannot run here."""
    if case == GPU_ON_CPU:
        return AerGpuCodePathOnCPU(load_config("aer_gpu").options)
    backend = shipped_backend(case)
    if load_config(case).tier == "hardware" and os.environ.get("SUBSTRATES_TEST_HARDWARE") != "1":
        pytest.skip(f"{case}: real hardware spends QPU time; set SUBSTRATES_TEST_HARDWARE=1")
    assert isinstance(backend, QuantumBackend)
    return backend


def kind(backend: QuantumBackend) -> str:
    """'exact' (probabilities and expectation values computed exactly) or 'noisy'."""
    return "exact" if backend.capabilities.exact else "noisy"
