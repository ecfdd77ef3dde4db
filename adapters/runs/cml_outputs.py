"""What a cml-reconstruct run writes of its maps: the scores against the reference (per
step, method and target), the summary over the steps, and fields.nc (CF-1.8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ...datasets.cml.network import KM_PER_DEGREE
from ...models.cml.grid import Grid
from ...models.cml.path_operator import PathOperator
from ...models.cml.reconstruct import field_scores
from .cml_inputs import LinkInputs, Reference
from .folder import RunFolder
from .provenance import now

WGS84_WKT = (
    'GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,'
    '298.257223563]],CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],'
    'ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",4326]]'
)


def scores(
    inputs: LinkInputs,
    grid: Grid,
    fields: dict[str, np.ndarray],
    reference: Reference,
    mask: np.ndarray,
) -> pa.Table:
    """One row per (step, method, target): target 'field' scores the map on cells near
    links, 'path' the rain averaged along each link path ('chain': the links themselves)."""
    import torch

    operator = PathOperator.from_dataset(inputs.links, grid)
    along = {"chain": inputs.path_rain_mm_h}
    for method, field in fields.items():
        rain = torch.as_tensor(np.nan_to_num(field), dtype=operator.dtype)
        along[method] = operator.path_average(rain).numpy()
    rows = []
    for t, label in enumerate(inputs.times):
        for target, estimates, truth in (
            ("field", fields, None if reference.field is None else reference.field[t][mask]),
            ("path", along, None if reference.path is None else reference.path[t]),
        ):
            for method, estimate in estimates.items():
                mine = estimate[t][mask] if target == "field" else estimate[t]
                score = field_scores(mine, truth) if truth is not None else None
                rows.append(
                    {
                        "time": label,
                        "method": method,
                        "target": target,
                        "rmse_mm_h": None if score is None else score.rmse,
                        "bias_mm_h": None if score is None else score.bias,
                        "pearson_r": None if score is None else score.pearson,
                        "mean_mm_h": float(np.nanmean(mine)),
                        "reference_mean_mm_h": None if truth is None else float(np.nanmean(truth)),
                    }
                )
    table = pa.Table.from_pylist(rows)
    return table.replace_schema_metadata({"reference": reference.label, "units": "mm/h"})


def summary(
    table: pa.Table, timings: dict[str, float], steps: int, extra: dict[str, Any]
) -> dict[str, Any]:
    """Mean scores per (target, method) over the steps, and seconds per step."""
    frame = table.to_pandas()
    scores = (
        frame.groupby(["target", "method"], sort=False)[["rmse_mm_h", "bias_mm_h", "pearson_r"]]
        .mean()
        .reset_index()
        .to_dict(orient="records")
    )
    summary: dict[str, Any] = {
        "steps": steps,
        "scores": scores,
        "seconds_per_step": {m: round(s / steps, 4) for m, s in timings.items()},
    }
    if "acceptance" in extra:
        summary["bayes_acceptance_mean"] = float(np.nanmean(extra["acceptance"]))
    for method, offset_db in extra.get("offset_db", {}).items():
        if np.isfinite(offset_db).any():
            summary[f"{method}_offset_abs_median_db"] = float(np.nanmedian(np.abs(offset_db)))
    for method, antenna_db in extra.get("wet_antenna_db", {}).items():
        if np.isfinite(antenna_db).any():
            summary[f"{method}_wet_antenna_median_db"] = float(np.nanmedian(antenna_db))
    for sampler in ("smc", "tempered", "exchange"):
        if sampler in extra["ess"] and np.isfinite(extra["ess"][sampler]).any():
            summary[f"{sampler}_ess_min"] = float(np.nanmin(extra["ess"][sampler]))
    if "swap_acceptance" in extra:
        summary["exchange_swap_acceptance"] = [round(float(a), 3) for a in extra["swap_acceptance"]]
    return summary


def write_fields(
    folder: RunFolder,
    inputs: LinkInputs,
    grid: Grid,
    fields: dict[str, np.ndarray],
    extra: dict[str, Any],
    reference: Reference,
    every_min: int,
    scored: np.ndarray,
) -> None:
    """fields.nc, CF-1.8: every map (time, lat, lon) as lwe_precipitation_rate in mm h-1
    (the mean over each step's interval, given as time bounds), the posterior standard
    errors, the reference and the flag of the cells scored (near a link). The local km
    frame is equirectangular about the grid's origin, so the cells form a regular
    latitude–longitude grid: lat and lon are the coordinate axes (WGS 84), x_km and y_km
    ride along as auxiliary coordinates."""
    import xarray as xr

    lat0, lon0 = grid.origin
    lat = lat0 + grid.y_km / KM_PER_DEGREE
    lon = lon0 + grid.x_km / (KM_PER_DEGREE * np.cos(np.radians(lat0)))
    dims = ("time", "lat", "lon")

    def rain(values: np.ndarray, what: str, modifier: str = "") -> tuple[Any, ...]:
        return (
            dims,
            values,
            {
                "standard_name": "lwe_precipitation_rate" + modifier,
                "units": "mm h-1",
                "long_name": what,
                "cell_methods": "time: mean",
                "grid_mapping": "crs",
            },
        )

    variables = {f"rain_{m}": rain(f, f"rain rate mapped by {m}") for m, f in fields.items()}
    for method, spread in extra["std"].items():
        what = f"posterior standard deviation of the rain rate ({method})"
        variables[f"rain_{method}_std"] = rain(spread, what, " standard_error")
    if "wet_fraction" in extra:
        variables["prior_wet_fraction"] = (
            "time",
            extra["wet_fraction"],
            {"long_name": "prior wet-area fraction", "units": "1"},
        )
        variables["prior_median"] = (
            "time",
            extra["median_mm_h"],
            {"long_name": "prior median rain rate", "units": "mm h-1"},
        )
    if reference.field is not None:
        variables["rain_reference"] = rain(reference.field, reference.label)
    variables["scored"] = (
        ("lat", "lon"),
        scored.astype(np.int8),
        {
            "long_name": "cell near a link path, where the maps are scored",
            "flag_values": np.array([0, 1], np.int8),
            "flag_meanings": "far near",
        },
    )
    start = inputs.times - np.timedelta64(every_min, "m")
    variables["time_bnds"] = (("time", "nv"), np.stack([start, inputs.times], axis=1))
    variables["crs"] = (
        (),
        np.int32(0),
        {
            "grid_mapping_name": "latitude_longitude",
            "semi_major_axis": 6378137.0,
            "inverse_flattening": 298.257223563,
            "crs_wkt": WGS84_WKT,
        },
    )
    dataset = xr.Dataset(
        variables,
        coords={
            "time": (
                "time",
                inputs.times,
                {"standard_name": "time", "axis": "T", "bounds": "time_bnds"},
            ),
            "lat": (
                "lat",
                lat,
                {"standard_name": "latitude", "units": "degrees_north", "axis": "Y"},
            ),
            "lon": (
                "lon",
                lon,
                {"standard_name": "longitude", "units": "degrees_east", "axis": "X"},
            ),
            "y_km": (
                "lat",
                grid.y_km,
                {"long_name": "distance north of the origin", "units": "km"},
            ),
            "x_km": ("lon", grid.x_km, {"long_name": "distance east of the origin", "units": "km"}),
        },
        attrs={
            "Conventions": "CF-1.8",
            "title": "rain maps from commercial microwave links",
            "source": "substrates cml-reconstruct",
            "origin_lat": lat0,
            "origin_lon": lon0,
            **({} if reference.field is None else {"reference": reference.label}),
            "history": f"{now()} substrates cml-reconstruct {folder.path.name}",
        },
    )
    for name in ("time", "time_bnds"):  # seconds since the epoch as a CF-1.8 type (no int64)
        dataset[name].encoding.update(units="seconds since 1970-01-01 00:00:00", dtype="float64")
    for name in ("time", "time_bnds", "lat", "lon", "y_km", "x_km"):  # never missing
        dataset[name].encoding["_FillValue"] = None
    folder.write_netcdf("fields.nc", dataset)
    if extra.get("offset_db"):  # --baseline latent
        write_offsets(folder, inputs, extra["offset_db"], extra.get("wet_antenna_db", {}))


def write_offsets(
    folder: RunFolder,
    inputs: LinkInputs,
    offset_db: dict[str, np.ndarray],
    wet_antenna_db: dict[str, np.ndarray],
) -> None:
    """offsets.parquet: each method's (bayes, pnp) posterior mean error of each sublink's
    dry reference (dB; NaN where the sublink saw no wet map), a row per method, link and
    sublink; with a latent wet-antenna A_max (`--antenna-sd-db`), its posterior mean too
    (`wet_antenna_max_db`)."""
    cml_id = inputs.links["cml_id"].values.astype(str)
    sublink_id = inputs.links["sublink_id"].values.astype(str)
    tables = []
    for method, offsets in offset_db.items():
        links, sublinks = offsets.shape
        columns = {
            "method": np.full(links * sublinks, method),
            "cml_id": np.repeat(cml_id, sublinks),
            "sublink_id": np.tile(sublink_id, links),
            "offset_db": offsets.ravel(),
        }
        if method in wet_antenna_db:
            columns["wet_antenna_max_db"] = wet_antenna_db[method].ravel()
        tables.append(pa.table(columns))
    folder.write_table("offsets.parquet", pa.concat_tables(tables))
