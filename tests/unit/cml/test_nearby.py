"""RAINLINK's nearby-link wet/dry classification against pycomlink's `nearby_wetdry`, on
pycomlink's real links (36 hours of 13–14 May 2018, 15-minute minima)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.models.cml.chain_parameters import ChainParameters
from substrates.models.cml.nearby import link_ends, nearby_wet, within_radius
from substrates.models.cml.processing import process

START = np.datetime64("2018-05-13T00:00")


@pytest.fixture(scope="module")
def links():
    data = create_backend("cml.opensense").load(START, START + np.timedelta64(36, "h"))
    return data.isel(cml_id=slice(0, 160))


def test_nearby_wet_equals_pycomlinks_on_real_links(links) -> None:
    wetdry = pytest.importorskip("pycomlink.processing.wet_dry.nearby_wetdry")
    sub = links.isel(sublink_id=0)
    pmin = (sub.rsl - sub.tsl).resample(time="15min").min()
    distances = wetdry.calc_distance_between_cml_endpoints(
        cml_ids=sub.cml_id.values,
        site_a_latitude=sub.site_0_lat.values,
        site_a_longitude=sub.site_0_lon.values,
        site_b_latitude=sub.site_1_lat.values,
        site_b_longitude=sub.site_1_lon.values,
    )
    theirs, _ = wetdry.nearby_wetdry(pmin.transpose("cml_id", "time"), distances)
    ends = link_ends(sub)
    ours = nearby_wet(
        pmin.transpose("cml_id", "time").values, sub.length.values, within_radius(ends, 15.0)
    )
    theirs = theirs.transpose("cml_id", "time").values
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    # pycomlink's spreading shifts fill its last two intervals with NaN, which its
    # xr.where takes as true: it calls every decided link wet there. Ours does not.
    decided = ~np.isnan(ours[:, :-2])
    assert np.array_equal(ours[:, :-2][decided], theirs[:, :-2][decided])
    assert (theirs[:, -2:][~np.isnan(theirs[:, -2:])] == 1).all()
    assert 50 < np.nansum(ours) < 0.5 * np.isfinite(ours).sum()  # rain, and dry spells


def test_the_chain_with_nearby_calls_wet_what_rainlink_calls_wet(links) -> None:
    """Where RAINLINK decides, the chain's wet flag is its decision for that interval;
    elsewhere the rolling standard deviation's."""
    from substrates.models.cml.nearby import nearby_wet_minutes

    std = process(links, ChainParameters())
    nearby = process(links, ChainParameters(wet_dry="nearby"))
    decided = nearby_wet_minutes(nearby["trsl"], links, 15.0)
    known = ~np.isnan(decided)
    assert 0.3 < known.mean() < 0.9  # none in the first 6 hours, nor for lone links
    assert np.array_equal(nearby["wet"].values[known], decided[known] == 1)
    assert np.array_equal(nearby["wet"].values[~known], std["wet"].values[~known])
    assert 0.005 < (std["wet"] != nearby["wet"]).mean().item() < 0.5


@pytest.mark.parametrize("hours", [5.5, 5.75, 6.0, 6.25])
def test_a_period_too_short_for_a_reference_is_undecided_without_computing_it(links, hours) -> None:
    """nearby_wet_minutes skips a period with fewer than 6 hours of 15-minute intervals
    (nothing there has a dry reference): it must agree with nearby_wet computed in full,
    undecided below 6 hours, and must not skip the periods where the full computation
    decides."""
    from substrates.models.cml.nearby import nearby_wet_minutes

    period = links.sel(time=slice(START, START + np.timedelta64(int(hours * 60) - 1, "m")))
    trsl = (period.tsl - period.rsl).transpose("cml_id", "sublink_id", "time")
    ours = nearby_wet_minutes(trsl, period, 15.0)
    assert ours.shape == trsl.shape
    ends = link_ends(period)
    pmin = (-trsl.isel(sublink_id=0)).resample(time="15min").min().values
    full = nearby_wet(pmin, period["length"].values, within_radius(ends, 15.0))
    assert np.isfinite(full).any() == (hours >= 6.0)
    assert np.isfinite(ours).any() == (hours >= 6.0)
