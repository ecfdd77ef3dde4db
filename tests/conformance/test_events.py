"""The shipped events suite (substrates.testing.events) on every shipped events config and
the GPU tier's torch code path on the CPU; and every simulator gives the same events."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.config import ConfigError, backend_from_config
from substrates.backends.events.base import EventSimulatorBackend
from substrates.backends.registry import create_backend
from substrates.testing.events import TestEventsBackend

from .backends import configs_of, shipped_backend

__all__ = ["TestEventsBackend"]

EVENTS_CONFIGS = configs_of("events")
GPU_ON_CPU = "events_sim_gpu[torch on the CPU]"


@pytest.fixture(scope="module", params=[*EVENTS_CONFIGS, GPU_ON_CPU])
def backend(request: pytest.FixtureRequest):
    if request.param == GPU_ON_CPU:
        return create_backend("events.sim_gpu", {"device": "cpu"})
    return shipped_backend(request.param)


def test_every_simulator_gives_the_same_events() -> None:
    from substrates.datasets.events.synthetic import drifting_texture

    frames, times = drifting_texture(64, 48, 0.05, seed=4)
    reference = create_backend("events.sim", {"preset": "noisy", "seed": 2})
    expected = reference.simulate(frames, times).array
    torch_cpu = create_backend("events.sim_gpu", {"preset": "noisy", "seed": 2, "device": "cpu"})
    assert np.array_equal(torch_cpu.simulate(frames, times).array, expected)
    for name in EVENTS_CONFIGS:
        try:
            simulator = backend_from_config(name)
        except ConfigError:  # a GPU tier without a GPU: its code path ran above on the CPU
            continue
        if isinstance(simulator, EventSimulatorBackend):
            same = type(simulator)({**simulator.options.model_dump(), "preset": "noisy", "seed": 2})
            assert np.array_equal(same.simulate(frames, times).array, expected)
