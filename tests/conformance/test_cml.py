"""The CML interface, the same assertions on every source."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.cml.base import CMLBackend
from substrates.backends.errors import CapabilityError

from .backends import configs_of, shipped_backend

CONFIGS = configs_of("cml")


@pytest.fixture(scope="module", params=CONFIGS)
def source(request: pytest.FixtureRequest) -> CMLBackend:
    backend = shipped_backend(request.param)
    assert isinstance(backend, CMLBackend)
    return backend


def _first_hours(source: CMLBackend, hours: int) -> tuple[np.datetime64, np.datetime64]:
    start = np.datetime64(source.capabilities.start)
    return start, start + np.timedelta64(hours, "h")


def test_a_time_range_comes_back_in_the_opensense_convention(source) -> None:
    start, end = _first_hours(source, 2)
    data = source.load(start, end)
    caps = source.capabilities
    assert data.sizes["cml_id"] == caps.links and data.sizes["sublink_id"] == caps.sublinks
    assert data["time"].values[0] >= start and data["time"].values[-1] < end
    assert data.sizes["time"] == int(2 * 3600 / caps.time_step_s)
    assert data["rsl"].attrs["units"] == data["tsl"].attrs["units"] == "dBm"
    frequency = data["frequency"].values
    assert (
        data["frequency"].attrs["units"] == "GHz" and 1 <= frequency.min() <= frequency.max() <= 100
    )
    assert set(np.unique(data["polarization"].values)) <= {"h", "v"}
    assert (data["length"].values > 0).all()
    assert not np.isin(data["tsl"].values, [255.0]).any()
    assert not np.isin(data["rsl"].values, [-99.9]).any()


def test_ranges_outside_the_source_are_refused_before_reading(source) -> None:
    start, _ = _first_hours(source, 0)
    with pytest.raises(CapabilityError, match="time range is empty"):
        source.load(start, start)
    if source.capabilities.end is not None:
        later = np.datetime64(source.capabilities.end) + np.timedelta64(1, "D")
        with pytest.raises(CapabilityError, match="nothing between"):
            source.load(later, later + np.timedelta64(1, "h"))


def test_to_dict_recreates_the_source(source) -> None:
    record = source.to_dict()
    assert type(source).from_dict(record).to_dict() == record
