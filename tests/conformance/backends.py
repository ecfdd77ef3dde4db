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
from substrates.backends.quantum.aer_gpu import AerGpuBackend
from substrates.backends.quantum.base import QuantumBackend


class AerGpuCodePathOnCPU(AerGpuBackend):
    """quantum.aer_gpu exactly as shipped, with Aer's device string set to CPU."""

    aer_device: ClassVar[str] = "CPU"


QUANTUM_CONFIGS = sorted(
    name for name in shipped_configs() if load_config(name).config.substrate == "quantum"
)
GPU_ON_CPU = "aer_gpu[code path on CPU]"
CASES = [*QUANTUM_CONFIGS, GPU_ON_CPU]


def build(case: str) -> QuantumBackend:
    """The backend of one case, or pytest.skip with the reason it cannot run here."""
    if case == GPU_ON_CPU:
        return AerGpuCodePathOnCPU(load_config("aer_gpu").options)
    resolved = load_config(case)
    try:
        backend = backend_from_config(resolved)
    except ConfigError as err:
        pytest.skip(f"{case}: {err.message}")
    if resolved.tier == "hardware" and os.environ.get("SUBSTRATES_TEST_HARDWARE") != "1":
        pytest.skip(f"{case}: real hardware spends QPU time; set SUBSTRATES_TEST_HARDWARE=1")
    assert isinstance(backend, QuantumBackend)
    return backend


def kind(backend: QuantumBackend) -> str:
    """'exact' (probabilities and expectation values computed exactly) or 'noisy'."""
    return "exact" if backend.capabilities.exact else "noisy"
