"""The standard CML rain-retrieval chain, on whole (cml_id, sublink_id, time) arrays at once.

1. trsl = tsl − rsl (dB), gaps up to `max_gap` samples interpolated;
2. wet/dry: centred rolling standard deviation of trsl above a threshold (dB), or
   RAINLINK's decision from the links nearby (`nearby.py`, `wet_dry="nearby"`);
3. baseline: trsl while dry, held at the mean of the last n baseline values while wet;
4. wet-antenna attenuation, Schleiss et al. 2013 (IEEE GRSL 10);
5. rain attenuation A = trsl − baseline − waa ≥ 0, and R = (A/(kL))^(1/α) with ITU-R
   P.838-3 k, α; R below `rain_min` mm/h set to 0.
Steps 3–4 follow pycomlink's definitions (NaN handling included) and are checked against
pycomlink on the same data; here they run as one parallel kernel over all series.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from ...datasets.cml.itu_p838 import k_alpha_by_polarization
from .chain_parameters import ChainParameters


@njit(parallel=True, cache=True)
def baseline_constant(trsl: np.ndarray, wet: np.ndarray, n_average_last_dry: int) -> np.ndarray:
    """Baseline per series (rows of 2-D arrays): trsl while dry; at a wet start the mean of
    the previous n baseline values, held while wet."""
    series, steps = trsl.shape
    baseline = np.empty_like(trsl)
    for s in prange(series):
        for i in range(min(n_average_last_dry, steps)):
            baseline[s, i] = trsl[s, i]
        for i in range(n_average_last_dry, steps):
            if wet[s, i] and not wet[s, i - 1]:
                baseline[s, i] = np.mean(baseline[s, i - n_average_last_dry : i])
            elif wet[s, i]:
                baseline[s, i] = baseline[s, i - 1]
            else:
                baseline[s, i] = trsl[s, i]
    return baseline


@njit(parallel=True, cache=True)
def wet_antenna_schleiss(
    trsl: np.ndarray, baseline: np.ndarray, wet: np.ndarray, waa_max: float, rate: float
) -> np.ndarray:
    """Wet-antenna attenuation: rises towards waa_max at `rate` (= 3Δt/τ) while wet, never
    above the observed attenuation. A NaN attenuation gives NaN; a NaN history is skipped."""
    series, steps = trsl.shape
    waa = np.zeros_like(trsl)
    for s in prange(series):
        for i in range(1, steps):
            observed = trsl[s, i] - baseline[s, i]
            cap = waa_max
            if wet[s, i]:
                grown = waa[s, i - 1] + (waa_max - waa[s, i - 1]) * rate
                if grown < cap:  # False for NaN: NaN history is skipped
                    cap = grown
            waa[s, i] = observed if np.isnan(observed) or observed < cap else cap
    return waa


def rolling_std_wet(trsl: np.ndarray, window: int, threshold: float) -> np.ndarray:
    """Centred rolling std (ddof 0, full windows only, as xarray's rolling) above threshold."""
    import bottleneck

    std = bottleneck.move_std(trsl, window, axis=-1)  # trailing window ending at i
    shift = window // 2 - (1 - window % 2)  # centre as xarray does: label i covers i-w/2 …
    centred = np.full_like(std, np.nan)
    centred[..., : std.shape[-1] - shift] = std[..., shift:]
    return centred > threshold


def path_rain_rate(attenuation_db: np.ndarray, dataset: Any, rain_min_mm_h: float) -> np.ndarray:
    """R = (A/(kL))^(1/α) in mm/h for rain attenuation (cml_id, sublink_id, time) of the
    dataset's links (ITU-R P.838-3 k, α); rates below rain_min_mm_h become 0, NaN stays."""
    links = ("cml_id", "sublink_id")
    k, alpha = k_alpha_by_polarization(
        dataset["frequency"].transpose(*links).values[..., None],
        dataset["polarization"].transpose(*links).values[..., None],
    )
    rain = (attenuation_db / (k * dataset["length"].values[:, None, None])) ** (1 / alpha)
    rain[rain < rain_min_mm_h] = 0.0
    return rain


def process(dataset: Any, parameters: ChainParameters | None = None) -> Any:
    """Add trsl, wet, baseline, waa, A (dB) and R (mm/h) to an OpenSense dataset."""
    p = parameters or ChainParameters()
    trsl = (
        (dataset["tsl"] - dataset["rsl"])
        .interpolate_na(dim="time", max_gap=np.timedelta64(p.max_gap, "m"), method="linear")
        .transpose("cml_id", "sublink_id", "time")
    )
    values = np.ascontiguousarray(trsl.values, dtype=np.float64)
    flat = values.reshape(-1, values.shape[-1])
    wet = rolling_std_wet(flat, p.window, p.threshold_db)
    if p.wet_dry == "nearby":
        from .nearby import nearby_wet_minutes

        decided = nearby_wet_minutes(trsl, dataset, p.nearby_radius_km).reshape(flat.shape)
        wet = np.where(np.isnan(decided), wet, decided == 1)
    baseline = baseline_constant(flat, wet, p.n_average_last_dry)
    waa = wet_antenna_schleiss(flat, baseline, wet, p.waa_max_db, 3 * p.delta_t_min / p.tau_min)
    attenuation = np.clip(flat - baseline - waa, 0, None)
    shape = values.shape
    rain = path_rain_rate(attenuation.reshape(shape), dataset, p.rain_min_mm_h)
    out = dataset.copy()
    dims = ("cml_id", "sublink_id", "time")
    for name, array, units in [
        ("trsl", values, "dB"),
        ("wet", wet.reshape(shape), "1"),
        ("baseline", baseline.reshape(shape), "dB"),
        ("waa", waa.reshape(shape), "dB"),
        ("A", attenuation.reshape(shape), "dB"),
        ("R", rain, "mm/h"),
    ]:
        out[name] = (dims, array, {"units": units})
    return out
