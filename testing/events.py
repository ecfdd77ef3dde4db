"""The events conformance suite: packets are time windows of the stream, inside the sensor,
in time order; simulators turn frames into events of the frames' size and time span; bad
requests are refused when made, before the first packet."""

from __future__ import annotations

import numpy as np
import pytest

from ..backends.events.base import EventsBackend, EventSimulatorBackend
from ..datasets.events.synthetic import drifting_texture
from ..errors import CapabilityError


class TestEventsBackend:
    """Every events source: pass a `backend` fixture (an EventsBackend)."""

    def test_packets_are_time_windows_inside_the_sensor(self, backend: EventsBackend) -> None:
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

    @pytest.mark.parametrize(("window_us", "limit_us"), [(0, 1000), (-5, 1000), (100, 0)])
    def test_bad_windows_are_refused_when_asked(
        self, backend: EventsBackend, window_us: int, limit_us: int
    ) -> None:
        with pytest.raises(CapabilityError, match="must be positive"):
            backend.packets(window_us, limit_us)  # not only once iterated

    def test_a_simulator_turns_frames_into_events_of_their_size_and_span(
        self, backend: EventsBackend
    ) -> None:
        if not isinstance(backend, EventSimulatorBackend):
            pytest.skip(f"{backend.name} is not a simulator")
        frames, times = drifting_texture(48, 32, 0.05, seed=4)
        events = backend.simulate(frames, times)
        a = events.array
        assert (events.width, events.height) == (48, 32) and len(events) > 0
        assert np.all(np.diff(a["t"]) >= 0)
        assert times[0] <= a["t"].min() and a["t"].max() <= times[-1]
        assert np.array_equal(backend.simulate(frames, times).array, a)  # seeded: repeatable

    def test_a_simulator_refuses_frames_it_cannot_use(self, backend: EventsBackend) -> None:
        if not isinstance(backend, EventSimulatorBackend):
            pytest.skip(f"{backend.name} is not a simulator")
        frames, times = drifting_texture(16, 16, 0.01, seed=1)
        with pytest.raises(CapabilityError, match="strictly increasing"):
            backend.simulate(frames, times[::-1])
        with pytest.raises(CapabilityError, match="finite and ≥ 0"):
            backend.simulate(-frames, times)

    def test_to_dict_recreates_the_source(self, backend: EventsBackend) -> None:
        record = backend.to_dict()
        assert type(backend).from_dict(record).to_dict() == record
