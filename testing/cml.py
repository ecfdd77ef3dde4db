"""The CML conformance suite: every source serves a time range in the OpenSense convention
and refuses ranges it does not hold before reading anything."""

from __future__ import annotations

import numpy as np
import pytest

from ..backends.cml.base import CMLBackend, CMLSimulatorBackend
from ..errors import CapabilityError


def _first_hours(source: CMLBackend, hours: int) -> tuple[np.datetime64, np.datetime64]:
    start = np.datetime64(source.capabilities.start)
    return start, start + np.timedelta64(hours, "h")


class TestCMLBackend:
    """Every CML source: pass a `backend` fixture (a CMLBackend)."""

    def test_a_time_range_comes_back_in_the_opensense_convention(self, backend: CMLBackend) -> None:
        start, end = _first_hours(backend, 2)
        data = backend.load(start, end)
        caps = backend.capabilities
        assert data.sizes["cml_id"] == caps.links and data.sizes["sublink_id"] == caps.sublinks
        assert data["time"].values[0] >= start and data["time"].values[-1] < end
        assert data.sizes["time"] == int(2 * 3600 / caps.time_step_s)
        assert data["rsl"].attrs["units"] == data["tsl"].attrs["units"] == "dBm"
        frequency = data["frequency"].values
        assert data["frequency"].attrs["units"] == "GHz"
        assert 1 <= frequency.min() <= frequency.max() <= 100
        assert set(np.unique(data["polarization"].values)) <= {"h", "v"}
        assert (data["length"].values > 0).all()
        assert not np.isin(data["tsl"].values, [255.0]).any()
        assert not np.isin(data["rsl"].values, [-99.9]).any()

    def test_ranges_outside_the_source_are_refused_before_reading(
        self, backend: CMLBackend
    ) -> None:
        start, _ = _first_hours(backend, 0)
        with pytest.raises(CapabilityError, match="time range is empty"):
            backend.load(start, start)
        if backend.capabilities.end is not None:
            later = np.datetime64(backend.capabilities.end) + np.timedelta64(1, "D")
            with pytest.raises(CapabilityError, match="nothing between"):
                backend.load(later, later + np.timedelta64(1, "h"))

    def test_a_simulator_gives_the_truth_of_the_same_range(self, backend: CMLBackend) -> None:
        if not isinstance(backend, CMLSimulatorBackend):
            pytest.skip(f"{backend.name} holds recorded data: no ground truth")
        start, end = _first_hours(backend, 1)
        truth, data = backend.ground_truth(start, end), backend.load(start, end)
        assert np.array_equal(truth["time"].values, data["time"].values)
        with pytest.raises(CapabilityError, match="time range is empty"):
            backend.ground_truth(end, start)

    def test_to_dict_recreates_the_source(self, backend: CMLBackend) -> None:
        record = backend.to_dict()
        assert type(backend).from_dict(record).to_dict() == record
