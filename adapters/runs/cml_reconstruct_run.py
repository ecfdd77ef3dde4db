"""`substrates run cml-reconstruct`: rain maps from links by IDW, ordinary kriging and the
Bayesian inverse problem, scored against the simulator's truth or a radar reference."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pyarrow as pa

from ...backends.cml.base import CMLBackend, CMLSimulatorBackend
from ...backends.errors import SubstratesError
from ...backends.gpu import no_cuda_reason
from ...backends.registry import create_backend
from ...datasets.cml.network import KM_PER_DEGREE
from ...datasets.cml.opensense import CMLDataError
from ...datasets.cml.radar_reference import (
    areal_reference,
    path_reference,
    pycomlink_references,
)
from ...models.cml.bayesian import BayesianSettings, reconstruct_bayesian
from ...models.cml.chain_parameters import ChainParameters
from ...models.cml.diffusion.prior import load_prior
from ...models.cml.diffusion.reconstruct import reconstruct_diffusion
from ...models.cml.diffusion.settings import DiffusionSettings
from ...models.cml.grid import Grid, link_ends_km, link_midpoints_km
from ...models.cml.kriging import OrdinaryKriging, Variogram
from ...models.cml.path_operator import PathOperator
from ...models.cml.reconstruct import field_scores, idw
from ..config import ConfigError, backend_from_config, load_config
from .cml_inputs import (
    LinkInputs,
    Reference,
    grid_for,
    link_inputs,
    near_links,
    radar_reference,
    simulator_reference,
    time_range,
)
from .folder import RunFolder
from .plots import close_figure, cml_maps_figure
from .progress import Progress
from .provenance import now, provenance, recording_failure

METHODS = ("idw", "kriging", "bayes", "dps", "pnp", "smc")
Sampler = Literal["dps", "pnp", "smc"]
WGS84_WKT = (
    'GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,'
    '298.257223563]],CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],'
    'ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",4326]]'
)


def run_cml_reconstruct(
    *,
    hardware: str | Path,
    data: str | None,
    start: str | None,
    end: str | None,
    every: int,
    cell_km: float | None,
    methods: Sequence[str],
    variogram: Literal["fitted", "climatological"],
    iterations: int,
    chains: int,
    diffusion_steps: int,
    draws: int,
    guidance: float,
    strength: float,
    prior: str | None,
    device: str,
    precision: Literal["float32", "float64"],
    true_baseline: bool,
    areal_reference: str | None,
    path_reference: str | None,
    seed: int,
    out: str | Path,
    near_km: float = 5.0,
    progress: Progress | None = None,
    dry_limit_db: float | None = DiffusionSettings.dry_limit_db,
    wet_threshold_db: float = ChainParameters.threshold_db,
    waa_max_db: float = ChainParameters.waa_max_db,
    wet_antenna_max_db: float = DiffusionSettings.wet_antenna_max_db,
    wet_antenna_by: Literal["model", "chain"] = "model",
) -> RunFolder:
    """Reconstruct rain fields every `every` minutes of [start, end] and score them.

    data: a netCDF file for a cml.opensense `hardware` source; areal_reference,
    path_reference: radar references (default for pycomlink's example data: the ones shipped
    with it); near_km: cells farther from every link are left out of the field scores;
    true_baseline: see `link_inputs` (simulator only; the Bayesian methods then model no
    wet antennas, whatever wet_antenna_max_db says); precision: of the Bayesian maps;
    iterations, chains: HMC's, per map; diffusion_steps, draws, guidance (DPS), strength
    (PnP, SMC): the diffusion samplers' (dps, pnp, smc); prior: their weights file (default:
    the shipped prior); dry_limit_db: the Bayesian methods read the chain's dry steps as
    "attenuation below this" instead of "no rain" (None); wet_threshold_db, waa_max_db:
    the standard chain's wet/dry threshold on trsl's rolling standard deviation and the
    cap of its Schleiss wet-antenna correction (dB), for every method alike;
    wet_antenna_max_db: A_max of the Pastorek wet-antenna attenuation the Bayesian methods
    model (dB, 0: none); wet_antenna_by: "chain" gives the Bayesian methods the chain's
    attenuation after its Schleiss wet-antenna correction (IDW's and kriging's data) and
    no wet-antenna term of their own, "model" the attenuation above the baseline and the
    Pastorek term.
    """
    every_min = every
    if iterations < 2 or chains < 1:
        raise SubstratesError("--iterations must be at least 2 and --chains at least 1")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown or not methods:
        raise SubstratesError(f"--methods: unknown {unknown}; allowed: {', '.join(METHODS)}")
    if every_min < 1:
        raise SubstratesError(f"--every must be at least 1 minute, got {every_min}")
    if device.startswith("cuda") and (reason := no_cuda_reason()):
        raise SubstratesError(f"--device {device}: {reason}")
    chain = ChainParameters(threshold_db=wet_threshold_db, waa_max_db=waa_max_db)
    if true_baseline or wet_antenna_by == "chain":  # the data then hold no wet-antenna loss
        wet_antenna_max_db = 0.0
    if dry_limit_db is not None and not dry_limit_db > 0:
        raise SubstratesError(f"--dry-limit-db must be positive dB, got {dry_limit_db}")
    settings = BayesianSettings(
        chains=chains,
        iterations=iterations,
        warmup=iterations // 2,
        dry_limit_db=dry_limit_db,
        wet_antenna_max_db=wet_antenna_max_db,
    )
    diffusion = DiffusionSettings(
        steps=diffusion_steps,
        draws=draws,
        scale=guidance,
        strength=strength,
        dry_limit_db=dry_limit_db,
        wet_antenna_max_db=wet_antenna_max_db,
    )
    if prior is not None and not Path(prior).is_file():
        raise SubstratesError(f"--prior {prior}: no such file")
    resolved, backend = _cml_source(hardware, data)
    areal, path = _references(backend, (areal_reference, path_reference))
    try:
        first, last = time_range(backend, start, end, path)
        inputs = link_inputs(
            backend,
            first,
            last,
            every_min,
            true_baseline,
            chain,
            corrected=wet_antenna_by == "chain",
        )
        if not np.isfinite(inputs.path_rain_mm_h).any():
            raise CMLDataError(
                f"{backend.name}: no link has data between {first} and {last} "
                "(every rsl or tsl is missing there)"
            )
        grid = grid_for(backend, inputs.links, cell_km)
        reference = (
            simulator_reference(backend, first, last, every_min)
            if isinstance(backend, CMLSimulatorBackend)
            else radar_reference(areal, path, grid, inputs)
        )
    except CMLDataError as err:
        raise SubstratesError(str(err)) from None

    climatology = None if variogram == "fitted" else climatological_variogram(last, every_min)
    folder = RunFolder.create(out, "cml-reconstruct")
    parameters = {
        "data": data,
        "start": str(first),
        "end": str(last),
        "every_min": every_min,
        "grid": {"cell_km": grid.cell_km, "nx": grid.nx, "ny": grid.ny, "origin": grid.origin},
        "near_km": near_km,
        "true_baseline": true_baseline,
        "chain": asdict(chain),
        "wet_antenna_by": wet_antenna_by,
        "methods": list(methods),
        "variogram": "fitted per map" if climatology is None else asdict(climatology),
        "bayesian": asdict(settings),
        "diffusion": asdict(diffusion),
        "prior": prior,
        "device": device,
        "precision": precision,
        "seed": seed,
        "reference": reference.label,
    }
    record = provenance("cml-reconstruct", resolved, backend, parameters)
    record["cleaning"] = backend.cleaning.to_dict()
    folder.write_json("provenance.json", record)
    with recording_failure(folder, record):
        fields, timings, extra = _reconstruct(
            inputs,
            grid,
            methods,
            (settings, diffusion, prior),
            (device, precision),
            seed,
            progress,
            climatology,
        )
    mask = near_links(grid, inputs.links, near_km)
    table = _scores(inputs, grid, fields, reference, mask)
    folder.write_table("results.parquet", table)
    _write_fields(folder, inputs, grid, fields, extra, reference, every_min, mask)
    figure = cml_maps_figure(
        grid,
        link_ends_km(inputs.links, grid.origin),
        inputs.times,
        fields,
        extra["std"],
        reference,
        f"{backend.name}: rain maps",
    )
    folder.save_figure("maps.png", figure)
    close_figure(figure)
    summary = _summary(table, timings, len(inputs.times), extra)
    record.update(status="complete", finished_at=now(), summary=summary)
    folder.write_json("provenance.json", record)
    return folder


def climatological_variogram(day: np.datetime64, every_min: int) -> Variogram:
    """The spherical variogram of Dutch rain gauges for the day of year and the duration
    (Van de Beek et al. 2012, Adv. Water Resour. 45:76; RAINLINK's ClimVarParam, in
    pycomlink as `clim_var_param`): range in km, nugget a tenth of the sill. Kriging's
    estimate depends on its range and nugget-to-sill ratio only, not on the sill's units."""
    from pycomlink.spatial.interpolator import clim_var_param

    date = str(np.datetime64(day, "D")).replace("-", "")
    value = clim_var_param(date_str=date, time_scale_hours=every_min / 60)
    return Variogram.from_sill(float(value["sill"]), float(value["range"]), float(value["nugget"]))


def _cml_source(source: str | Path, data: str | None) -> tuple[Any, CMLBackend]:
    resolved = load_config(source)
    if resolved.config.substrate != "cml":
        raise ConfigError(resolved.path, "substrate", "cml-reconstruct needs a cml source")
    if data is None:
        return resolved, backend_from_config(resolved)
    if resolved.config.backend != "cml.opensense":
        raise SubstratesError(f"--data needs a cml.opensense source, not {resolved.config.backend}")
    if not Path(data).exists():
        raise SubstratesError(f"--data {data}: no such file or folder")
    options = {**resolved.options.model_dump(), "path": str(data)}
    return resolved, create_backend("cml.opensense", options)


def _references(backend: CMLBackend, files: tuple[str | None, str | None]) -> tuple[Any, Any]:
    """Radar references for real data: the files given, else pycomlink's for its example."""
    if isinstance(backend, CMLSimulatorBackend):
        if any(files):
            raise SubstratesError("radar references apply to real data; the simulator has truth")
        return None, None
    areal_file, path_file = files
    if not any(files) and getattr(backend.options, "path", None) is None:
        areal_file, path_file = pycomlink_references()
    try:
        return (
            None if areal_file is None else areal_reference(areal_file),
            None if path_file is None else path_reference(path_file),
        )
    except CMLDataError as err:
        raise SubstratesError(str(err)) from None


def _reconstruct(
    inputs: LinkInputs,
    grid: Grid,
    methods: Sequence[str],
    samplers: tuple[BayesianSettings, DiffusionSettings, str | None],
    torch_placement: tuple[str, str],
    seed: int,
    progress: Progress | None,
    variogram: Variogram | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, Any]]:
    """Fields (steps, ny, nx) per method, seconds per method, and the probabilistic
    methods' extras (extra["std"][method], HMC's levels and acceptance, SMC's ESS);
    samplers: HMC's settings, the diffusion samplers' and their prior's weights file;
    torch_placement: (device, precision) of the Bayesian reconstructions."""
    import torch

    settings, diffusion, prior_file = samplers
    device, precision = torch_placement
    points, cells = link_midpoints_km(inputs.links, grid.origin), grid.points()
    steps = len(inputs.times)
    fields: dict[str, np.ndarray] = {}
    timings: dict[str, float] = {}
    extra: dict[str, Any] = {"std": {}, "ess": {}}
    prior = None
    for method in methods:
        began = time.perf_counter()
        if method == "bayes":
            operator = PathOperator.from_dataset(
                inputs.links, grid, device=device, dtype=getattr(torch, precision)
            )
            report = None if progress is None else (lambda i, n: progress("bayes", i, n))
            posterior = reconstruct_bayesian(
                inputs.attenuation_db,
                inputs.path_rain_mm_h,
                operator,
                (grid.ny, grid.nx),
                settings,
                seed=seed,
                on_iteration=report,
            )
            fields[method] = posterior.mean
            extra["std"][method] = posterior.std
            extra.update(
                wet_fraction=posterior.wet_fraction,
                median_mm_h=posterior.median_mm_h,
                acceptance=posterior.acceptance,
            )
        elif method in ("dps", "pnp", "smc"):
            if prior is None:
                prior = load_prior(prior_file, device, getattr(torch, precision))
            report = None if progress is None else (lambda i, n, m=method: progress(m, i, n))
            sampled = reconstruct_diffusion(
                inputs.attenuation_db,
                inputs.path_rain_mm_h,
                inputs.links,
                grid,
                prior,
                replace(diffusion, sampler=cast(Sampler, method)),
                seed=seed,
                on_step=report,
            )
            fields[method] = sampled.mean
            extra["std"][method] = sampled.std
            extra["ess"][method] = sampled.ess
        else:
            kriging = OrdinaryKriging(points, cells, variogram) if method == "kriging" else None
            maps = []
            for t in range(steps):
                rain = inputs.path_rain_mm_h[t]
                maps.append(idw(points, rain, cells) if kriging is None else kriging(rain)[0])
                if progress is not None:
                    progress(method, t + 1, steps)
            fields[method] = np.stack(maps).reshape(steps, grid.ny, grid.nx)
        timings[method] = time.perf_counter() - began
    return fields, timings, extra


def _scores(
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


def _summary(
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
    if "smc" in extra["ess"] and np.isfinite(extra["ess"]["smc"]).any():
        summary["smc_ess_min"] = float(np.nanmin(extra["ess"]["smc"]))
    return summary


def _write_fields(
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
            "reference": reference.label,
            "history": f"{now()} substrates cml-reconstruct {folder.path.name}",
        },
    )
    for name in ("time", "time_bnds"):  # seconds since the epoch as a CF-1.8 type (no int64)
        dataset[name].encoding.update(units="seconds since 1970-01-01 00:00:00", dtype="float64")
    for name in ("time", "time_bnds", "lat", "lon", "y_km", "x_km"):  # never missing
        dataset[name].encoding["_FillValue"] = None
    folder.write_netcdf("fields.nc", dataset)
