"""One suite for every shipped events config (plus the GPU tier on the CPU): packets are
windows of the stream, inside the sensor, in time order; simulators agree with each other."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.config import ConfigError, backend_from_config
from substrates.backends.events.base import EventSimulatorBackend
from substrates.backends.registry import create_backend

from .backends import configs_of, shipped_backend

EVENTS_CONFIGS = configs_of("events")


@pytest.fixture(params=EVENTS_CONFIGS)
def backend(request):
    return shipped_backend(request.param)


def test_packets_are_time_windows_inside_the_sensor(backend) -> None:
    caps = backend.capabilities
    packets = list(backend.packets(10_000, limit_us=60_000))
    assert packets and sum(len(p) for p in packets) > 0
    start = min(int(p.array["t"][0]) for p in packets if len(p))
    for k, packet in enumerate(packets):
        a = packet.array
        assert (packet.width, packet.height) == (caps.width, caps.height)
        assert np.all(np.diff(a["t"]) >= 0) and np.all((a["p"] == 0) | (a["p"] == 1))
        assert np.all((a["x"] < caps.width) & (a["y"] < caps.height))
        assert np.all((a["t"] - start) // 10_000 == k)


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
            same = type(simulator)({**simulator.options.model_dump(), "preset": "noisy",
                                    "seed": 2})  # fmt: skip
            assert np.array_equal(same.simulate(frames, times).array, expected)
