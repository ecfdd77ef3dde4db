"""Our processing chain against pycomlink's functions on the same real data."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.errors import SubstratesError
from substrates.models.cml.processing import ChainParameters, process
from substrates.models.cml.pycomlink_reference import pycomlink_chain


@pytest.fixture(scope="module")
def day():
    data = create_backend("cml.opensense").load("2018-05-13T00:00", "2018-05-14T00:00")
    return data.isel(cml_id=slice(0, 60))


@pytest.fixture(scope="module")
def reference(day):
    """pycomlink's chain, as in its basic-processing notebook."""
    return pycomlink_chain(day).transpose("cml_id", "sublink_id", "time")


@pytest.fixture(scope="module")
def ours(day):
    return process(day).transpose("cml_id", "sublink_id", "time")


@pytest.mark.parametrize("step", ["trsl", "wet", "baseline"])
def test_steps_equal_pycomlink_exactly(ours, reference, step: str) -> None:
    assert np.array_equal(
        ours[step].values.astype(float), reference[step].values.astype(float), equal_nan=True
    )


@pytest.mark.parametrize("step", ["waa", "A"])
def test_wet_antenna_and_attenuation_equal_pycomlink(ours, reference, step: str) -> None:
    a, b = ours[step].values, reference[step].values
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.nanmax(np.abs(a - b)) < 1e-12


def test_rain_rate_agrees_with_pycomlinks_tabulated_k_alpha(ours, reference) -> None:
    ours_r, theirs = ours["R"].values, reference["R"].values
    assert np.array_equal(ours_r > 0, theirs > 0)  # the same rainy samples
    both = (ours_r > 0.5) & (theirs > 0.5)
    assert both.sum() > 1000  # it rained on 13 May 2018
    # formula vs pycomlink's cubic interpolation of the rounded P.838-3 table
    assert np.max(np.abs(ours_r[both] / theirs[both] - 1)) < 0.02
    assert ours["R"].attrs["units"] == "mm/h"


def test_dry_series_give_no_rain() -> None:
    import xarray as xr

    times = np.arange(600).astype("datetime64[m]").astype("datetime64[ns]")
    rsl = np.full((1, 1, 600), -40.0) + np.random.default_rng(0).normal(0, 0.05, (1, 1, 600))
    data = xr.Dataset(
        {
            "rsl": (("cml_id", "sublink_id", "time"), rsl),
            "tsl": (("cml_id", "sublink_id", "time"), np.full((1, 1, 600), 10.0)),
        },
        coords={
            "cml_id": ["a"],
            "sublink_id": ["s"],
            "time": times,
            "frequency": (("cml_id", "sublink_id"), [[23.0]]),
            "polarization": (("cml_id", "sublink_id"), [["v"]]),
            "length": ("cml_id", [5.0]),
        },
    )
    result = process(data, ChainParameters())
    assert not result["wet"].values.any() and (result["R"].values == 0).all()


@pytest.mark.parametrize(
    ("name", "value"),
    [("threshold_db", 0.0), ("waa_max_db", -0.5), ("window", 0), ("tau_min", -1.0)],
)
def test_parameters_out_of_range_refused_by_name(name: str, value: float) -> None:
    with pytest.raises(SubstratesError, match=rf"^chain parameters: {name} must"):
        ChainParameters(**{name: value})
    assert ChainParameters(waa_max_db=0.0).waa_max_db == 0.0  # no cap is allowed
