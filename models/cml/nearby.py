"""Wet or dry from the links nearby: RAINLINK's classification (Overeem, Leijnse and
Uijlenhoet 2016, Atmos. Meas. Tech. 9:2425, section 3.2), as pycomlink's
`nearby_wetdry` implements it.

Each link's minimum received power in every 15-minute interval (`pmin`, dB, relative to
its transmitted power) is compared with its largest `pmin` of the previous 24 hours (the
dry reference; at least 6 hours of them): ΔP = pmin − max pmin, in dB, and ΔP/L in dB/km.
A link is wet in an interval when the medians of ΔP and of ΔP/L over the links nearby
(both ends of each within `radius_km` of both of its ends; itself included) fall below
−1.4 dB and −0.7 dB/km, with more than `min_links` of them reporting. The interval after
and the two before a wet one whose own ΔP is below −2 dB are wet too. A link with
`min_links` or fewer neighbours, or an interval without a decision, is NaN. (pycomlink
also calls every decided link wet in a period's last two intervals, where its spreading
shifts in NaN and `xr.where` reads NaN as true; here they are decided as the others.)

Example:
    >>> import numpy as np
    >>> ends = np.array([[0.0, 0.0, 0.0, 0.05]] * 5)  # five 5.6 km links, one place
    >>> ends[:, 1] += np.arange(5) * 0.01
    >>> pmin = np.zeros((5, 40))
    >>> pmin[:, 30:33] = -6.0  # every link loses 6 dB for 45 minutes
    >>> wet = nearby_wet(pmin, np.full(5, 5.6), within_radius(ends, 15.0))
    >>> np.flatnonzero(wet[0] == 1).tolist()
    [28, 29, 30, 31, 32, 33]
"""

from __future__ import annotations

import numpy as np
import xarray as xr

EARTH_RADIUS_KM = 6367.0
"""The radius pycomlink's haversine uses (km)."""
INTERVAL_MIN = 15
"""Minutes of each interval whose minimum received power is classified."""
MIN_REFERENCE_HOURS = 6.0
"""Hours of intervals a dry reference needs: with fewer, nothing is decided."""


def haversine_km(
    lat1: np.ndarray, lon1: np.ndarray, lat2: np.ndarray, lon2: np.ndarray
) -> np.ndarray:
    """Great-circle distance in km between points given in degrees (broadcast)."""
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_KM * np.arctan2(np.sqrt(a), np.sqrt(1 - a))


def link_ends(dataset: xr.Dataset) -> np.ndarray:
    """(n, 4) each link's ends from an OpenSense dataset: lat, lon of site 0, lat, lon of
    site 1, in degrees, as `within_radius` takes them."""
    return np.stack(
        [dataset[f"site_{s}_{c}"].values for s in (0, 1) for c in ("lat", "lon")], axis=1
    )


def within_radius(ends: np.ndarray, radius_km: float) -> np.ndarray:
    """(n, n) bool: row i marks the links whose two ends both lie within `radius_km` of both
    ends of link i (a link is always within its own radius). `ends` (n, 4): lat, lon of one
    end, lat, lon of the other, in degrees."""
    near = np.ones((len(ends), len(ends)), bool)
    for mine in (ends[:, 0:2], ends[:, 2:4]):
        for theirs in (ends[:, 0:2], ends[:, 2:4]):
            d = haversine_km(
                mine[:, None, 0], mine[:, None, 1], theirs[None, :, 0], theirs[None, :, 1]
            )
            near &= d < radius_km
    np.fill_diagonal(near, True)
    return near


def nearby_wet(
    pmin_db: np.ndarray,
    lengths_km: np.ndarray,
    nearby: np.ndarray,
    threshold_median_db: float = -1.4,
    threshold_median_db_km: float = -0.7,
    min_links: int = 3,
    reference_hours: float = 24.0,
    min_reference_hours: float = MIN_REFERENCE_HOURS,
) -> np.ndarray:
    """(n, intervals) wet (1.0), dry (0.0) or undecided (NaN) for each link's `pmin_db`
    (n, intervals) of INTERVAL_MIN-minute minima, NaN where missing; `lengths_km` (n,),
    `nearby` from `within_radius`. Thresholds and counts as in the module's docstring."""
    per_hour = 60 // INTERVAL_MIN
    pmin = xr.DataArray(pmin_db, dims=("cml_id", "time"))
    reference = pmin.rolling(
        time=int(reference_hours * per_hour), min_periods=int(min_reference_hours * per_hour)
    ).max(skipna=False)
    delta = (pmin - reference).values
    delta_per_km = delta / np.asarray(lengths_km)[:, None]
    wet = np.full(delta.shape, np.nan)
    for i, near in enumerate(nearby):
        if near.sum() <= min_links:
            continue
        reporting = np.isfinite(delta[near]).sum(axis=0) > min_links
        median = np.where(reporting, _nanmedian(delta[near]), np.nan)
        median_km = np.where(reporting, _nanmedian(delta_per_km[near]), np.nan)
        decided = np.isfinite(median) & np.isfinite(median_km)
        found = (median < threshold_median_db) & (median_km < threshold_median_db_km)
        strong = found & decided & (delta[i] < -2.0)
        spread = found.copy()
        spread[1:] |= strong[:-1]  # the interval after
        spread[:-1] |= strong[1:]  # and the two before
        spread[:-2] |= strong[2:]
        wet[i] = np.where(decided, spread, np.nan)
    return wet


def _nanmedian(values: np.ndarray) -> np.ndarray:
    """Median over axis 0 ignoring NaN (NaN where a column has none)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(values, axis=0)


def nearby_wet_minutes(trsl_db: xr.DataArray, dataset: xr.Dataset, radius_km: float) -> np.ndarray:
    """`nearby_wet` at the time steps of `trsl_db` (cml_id, sublink_id, time; attenuation
    in dB, so pmin is minus its interval maximum), each sublink classified with the same
    sublink of its neighbours: (cml_id, sublink_id, time) of 1.0, 0.0 or NaN, each time step
    taking its interval's decision. `dataset` gives the links' ends (site_0_lat, …) and
    lengths (km). A period shorter than MIN_REFERENCE_HOURS is all NaN at once: no interval
    of it has a reference."""
    minutes = trsl_db["time"].values[[0, -1]].astype("datetime64[m]").astype(np.int64)
    intervals = int(np.diff(minutes // INTERVAL_MIN)[0]) + 1  # as resample bins them
    if intervals < MIN_REFERENCE_HOURS * 60 / INTERVAL_MIN:
        return np.full([trsl_db.sizes[d] for d in ("cml_id", "sublink_id", "time")], np.nan)
    pmin = (-trsl_db).resample(time=f"{INTERVAL_MIN}min").min()
    near = within_radius(link_ends(dataset), radius_km)
    lengths = dataset["length"].values
    wet = np.stack(
        [
            nearby_wet(pmin.isel(sublink_id=k).transpose("cml_id", "time").values, lengths, near)
            for k in range(pmin.sizes["sublink_id"])
        ],
        axis=1,
    )
    interval = (
        np.searchsorted(
            pmin["time"].values, trsl_db["time"].values.astype(pmin["time"].dtype), side="right"
        )
        - 1
    )
    return wet[:, :, interval]
