"""What `cml-reconstruct` feeds its methods: link observations on the reconstruction time
steps, the grid, and the reference (simulator truth or radar) on the same steps and grid."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...backends.cml.base import CMLBackend, CMLSimulatorBackend
from ...datasets.cml.opensense import CMLDataError
from ...datasets.cml.radar_reference import (
    areal_reference,
    cell_means,
    path_reference,
    pycomlink_references,
)
from ...errors import OptionError, SubstratesError
from ...models.cml.chain_parameters import ChainParameters
from ...models.cml.grid import Grid, link_ends_km, to_km
from ...models.cml.kriging import Variogram
from ...models.cml.processing import path_rain_rate, process

SPIN_DOWN = np.timedelta64(1, "h")
"""Data read after the last step: the chain's rolling window is centred."""
DEFAULT_HOURS = 3


@dataclass
class LinkInputs:
    """Per reconstruction step (the interval (time − every, time]): attenuation above the
    chain's baseline, or after its wet-antenna correction (dB; links × sublinks; see
    `link_inputs`), and the chain's path-averaged rain (mm/h, mean of the sublinks);
    `links` is the OpenSense dataset for the geometry; above_reference_db: trsl above each
    sublink's dry reference, the median trsl while the chain called it dry (dB, not
    clipped: no wet/dry decision or wet-antenna correction taken out; what latent
    offsets read, `baseline_offset`)."""

    times: np.ndarray
    attenuation_db: np.ndarray
    path_rain_mm_h: np.ndarray
    links: Any
    above_reference_db: np.ndarray


@dataclass
class Reference:
    """Reference rain (mm/h) on the steps: field (steps, ny, nx) on the grid and path
    averages (steps, links); either may be None. `label` names where it comes from
    ("none" when both are)."""

    label: str
    field: np.ndarray | None
    path: np.ndarray | None


def _instant(text: str | None, option: str) -> np.datetime64 | None:
    """An ISO 8601 time (ns), None for none; an OptionError naming `option` otherwise."""
    try:
        return None if text is None else np.datetime64(text, "ns")
    except ValueError as err:
        raise OptionError(f"{text!r} is not an ISO 8601 time: {err}", option=option) from None


def time_range(
    backend: CMLBackend, start: str | None, end: str | None, path_reference: Any
) -> tuple[np.datetime64, np.datetime64]:
    """The period to reconstruct: as given; else a simulator's whole period; else the
    wettest DEFAULT_HOURS of the radar path reference."""
    begin, finish = _instant(start, "start"), _instant(end, "end")
    caps = backend.capabilities
    if begin is None and finish is None:
        if isinstance(backend, CMLSimulatorBackend):
            return np.datetime64(caps.start, "ns"), np.datetime64(caps.end, "ns")
        if path_reference is None:
            raise OptionError(
                "this source has no default period; give start and end", option="start"
            )
        hourly = path_reference.mean("cml_id").resample(time="1h").mean()
        wettest = hourly.rolling(time=DEFAULT_HOURS).mean().idxmax("time").values
        return wettest - np.timedelta64(DEFAULT_HOURS - 1, "h"), wettest + np.timedelta64(1, "h")
    if begin is None or finish is None:
        raise OptionError(
            "give both start and end, or neither", option="start" if begin is None else "end"
        )
    if finish <= begin:
        raise OptionError(f"{end} is not after start {start}", option="end")
    if (
        caps.start is not None
        and caps.end is not None
        and (begin >= np.datetime64(caps.end, "ns") or finish <= np.datetime64(caps.start, "ns"))
    ):
        raise SubstratesError(
            f"the data hold {caps.start} to {caps.end}; nothing between "
            f"--start {start} and --end {end}"
        )
    return begin, finish


def link_inputs(
    backend: CMLBackend,
    start: np.datetime64,
    end: np.datetime64,
    every_min: int,
    true_baseline: bool = False,
    chain: ChainParameters | None = None,
    corrected: bool = False,
) -> LinkInputs:
    """Run the standard chain over the period (plus spin-up) and average it per step.

    true_baseline (simulator only): subtract the true dry baseline and wet-antenna
    attenuation instead of the chain's estimates, so that every method sees the links' rain
    attenuation with measurement noise only and the comparison isolates the reconstruction
    (the Bayesian methods should then model no wet antennas: wet_antenna_max_db 0). chain: the
    standard chain's parameters (default: pycomlink's example's). corrected: the
    attenuation is the chain's after its Schleiss wet-antenna correction (what its rain
    rate comes from), not the attenuation above its baseline (no effect with true_baseline).
    """
    caps = backend.capabilities
    chain = chain or ChainParameters()
    first = max(start - chain.history, np.datetime64(caps.start, "ns"))
    after = end + SPIN_DOWN
    if caps.end is not None:
        after = min(after, np.datetime64(caps.end, "ns") + np.timedelta64(1, "s"))
    loaded = backend.load(first, after)
    silent = loaded["rsl"].isnull().all(dim=("sublink_id", "time")).values
    if silent.all():
        shown = [str(t.astype("datetime64[s]")) for t in (first, after)]
        raise SubstratesError(
            f"{backend.name}: no link has data (an rsl value) between {shown[0]} and {shown[1]}"
        )
    if silent.any():  # skipped, and counted in provenance
        backend.cleaning.links_without_data += [str(i) for i in loaded["cml_id"].values[silent]]
        loaded = loaded.isel(cml_id=~silent)
    processed = process(loaded, chain)
    rain = processed["R"]
    if true_baseline:
        if not isinstance(backend, CMLSimulatorBackend):
            raise OptionError("needs a simulator: real links have no truth", option="true_baseline")
        truth = backend.ground_truth(first, after)
        above = (processed["trsl"] - truth["baseline"] - truth["A_wet_antenna"]).clip(min=0)
        above = above.transpose(*rain.dims)
        rain = above.copy(data=path_rain_rate(above.values, processed, chain.rain_min_mm_h))
    elif corrected:
        above = processed["A"]
    else:
        above = (processed["trsl"] - processed["baseline"]).clip(min=0)
    steps, labels = _steps(processed["time"].values, start, end, every_min)
    keep = steps > 0
    above_reference = processed["trsl"] - dry_reference(processed)
    series = (("A", above), ("R", rain.mean("sublink_id")), ("above", above_reference))
    grouped = {
        name: values.isel(time=keep).assign_coords(step=("time", steps[keep])).groupby("step")
        for name, values in series
    }
    by_link = ("step", "cml_id", "sublink_id")
    attenuation = grouped["A"].mean().transpose(*by_link).values
    rain = grouped["R"].mean().transpose("step", "cml_id").values
    if len(attenuation) != len(labels):
        raise SubstratesError(f"no data in some {every_min}-minute steps of {start} to {end}")
    if not np.isfinite(rain).any():
        raise CMLDataError(
            f"{backend.name}: no link has data between {start} and {end} "
            "(every rsl or tsl is missing there)"
        )
    above_by_step = grouped["above"].mean().transpose(*by_link).values
    return LinkInputs(labels, attenuation, rain, processed, above_by_step)


def dry_reference(processed: Any) -> Any:
    """Each sublink's dry reference (dB): the median trsl over the samples the chain called
    dry, or over all of them where it never did; processed: the chain's output (`process`)."""
    trsl = processed["trsl"]
    return trsl.where(processed["wet"] == 0).median("time").fillna(trsl.median("time"))


def _steps(
    times: np.ndarray, start: np.datetime64, end: np.datetime64, every_min: int
) -> tuple[np.ndarray, np.ndarray]:
    """Step number of each time (0: outside) and the step labels: step k covers
    (start + (k−1)·every, start + k·every], labelled by its end, as radar sums are."""
    every = np.timedelta64(every_min, "m")
    count = int((end - start) // every)
    if count < 1:
        raise SubstratesError(f"the period {start} to {end} is shorter than --every {every_min}")
    k = np.ceil((times - start) / every).astype(int)
    k[(k < 1) | (k > count)] = 0
    return k, start + every * np.arange(1, count + 1)


def grid_for(backend: CMLBackend, links: Any, cell_km: float | None) -> Grid:
    """For real data a grid of cell_km (default 2) over the links; for a simulator its own
    grid, or with cell_km the same area in cells of cell_km, which must be at least the
    simulator's (its truth is then averaged into them: `simulator_reference`)."""
    if isinstance(backend, CMLSimulatorBackend):
        native = simulator_grid(backend)
        if cell_km is None or np.isclose(cell_km, native.cell_km):
            return native
        if cell_km < native.cell_km:
            raise OptionError(
                f"{cell_km:g} km is finer than the simulator's {native.cell_km:g} km cells, "
                "where its truth is known",
                option="cell_km",
            )
        return native.with_cell(cell_km)
    try:
        return Grid.covering(links, cell_km or 2.0)
    except ValueError as error:
        raise SubstratesError(f"{backend.name}: {error}") from None


def simulator_grid(backend: CMLSimulatorBackend) -> Grid:
    """The grid the simulator's truth lies on."""
    return _truth_grid(backend.ground_truth(*_first_minute(backend)))


def _truth_grid(truth: Any) -> Grid:
    """The grid of a simulator's truth (a dataset with x_km, y_km and its origin)."""
    cell = float(truth.x_km[1] - truth.x_km[0])
    return Grid(
        (truth.attrs["origin_lat"], truth.attrs["origin_lon"]),
        cell,
        truth.sizes["x_km"],
        truth.sizes["y_km"],
        float(truth.x_km[0]) - cell / 2,
        float(truth.y_km[0]) - cell / 2,
    )


def _first_minute(backend: CMLBackend) -> tuple[np.datetime64, np.datetime64]:
    start = np.datetime64(backend.capabilities.start, "ns")
    return start, start + np.timedelta64(1, "m")


def simulator_reference(
    backend: Any, start: np.datetime64, end: np.datetime64, every_min: int, grid: Grid
) -> Reference:
    """The simulator's true rain field and path-averaged rain, averaged like the links; on
    a grid coarser than the simulator's, each cell holds the mean of the simulator's cells
    whose centres fall in it (their area mean where the cells nest)."""
    truth = backend.ground_truth(start, end + np.timedelta64(1, "s"))
    steps, _ = _steps(truth["time"].values, start, end, every_min)
    keep = steps > 0
    field = truth["rain"].isel(time=keep).assign_coords(step=("time", steps[keep]))
    path = truth["R_path"].isel(sublink_id=0, time=keep).assign_coords(step=("time", steps[keep]))
    means = field.groupby("step").mean().values
    native = _truth_grid(truth)
    label = "simulator truth"
    if not np.isclose(grid.cell_km, native.cell_km):
        x, y = np.meshgrid(native.x_km, native.y_km)
        means = _averaged_into(grid, x, y, means.reshape(len(means), -1))
        label += f" (its {native.cell_km:g} km cells averaged into {grid.cell_km:g} km)"
    return Reference(label, means, path.groupby("step").mean().transpose("step", "cml_id").values)


def radar_reference(areal: Any, path: Any, grid: Grid, inputs: LinkInputs, label: str) -> Reference:
    """Radar rain on the steps: pixels averaged into the grid's cells; path averages of the
    same links; `label` says where they come from (`references`). Steps the radar does not
    hold are an error."""
    labels = inputs.times
    field = None
    if areal is not None:
        missing = np.setdiff1d(labels, areal["time"].values)
        if len(missing):
            raise CMLDataError(f"the areal reference has no field at {missing[0]}")
        x, y = to_km(areal["latitudes"].values, areal["longitudes"].values, grid.origin)
        frames = areal["rain"].sel(time=labels).values.reshape(len(labels), -1)
        field = _averaged_into(grid, x, y, frames)
    averaged = None
    if path is not None:
        ids = inputs.links["cml_id"].values.astype(str)
        path = path.assign_coords(cml_id=path["cml_id"].values.astype(str))
        averaged = path.reindex(time=labels, cml_id=ids).transpose("time", "cml_id").values
    return Reference(
        label if field is not None or averaged is not None else "none", field, averaged
    )


def _averaged_into(grid: Grid, x_km: Any, y_km: Any, frames: np.ndarray) -> np.ndarray:
    """(steps, ny, nx): the values of points at (x_km, y_km) (east and north of the grid's
    origin), frames (steps, points), averaged into the grid's cells (`cell_means`)."""
    return cell_means(x_km, y_km, frames, grid.cell_km, grid.nx, grid.ny, grid.x0_km, grid.y0_km)


def near_links(grid: Grid, links: Any, within_km: float) -> np.ndarray:
    """(ny, nx) mask of cells whose centre lies within `within_km` of some link path."""
    x0, y0, x1, y1 = link_ends_km(links, grid.origin)
    points = grid.points()
    dx, dy = x1 - x0, y1 - y0
    along = ((points[:, :1] - x0) * dx + (points[:, 1:] - y0) * dy) / np.maximum(
        dx**2 + dy**2, 1e-12
    )
    along = np.clip(along, 0, 1)
    distance = np.hypot(points[:, :1] - x0 - along * dx, points[:, 1:] - y0 - along * dy)
    return (distance.min(axis=1) <= within_km).reshape(grid.ny, grid.nx)


def climatological_variogram(day: np.datetime64, every_min: int) -> Variogram:
    """The spherical variogram of Dutch rain gauges for the day of year and the duration
    (Van de Beek et al. 2012, Adv. Water Resour. 45:76; RAINLINK's ClimVarParam, in
    pycomlink as `clim_var_param`): range in km, nugget a tenth of the sill. Kriging's
    estimate depends on its range and nugget-to-sill ratio only, not on the sill's units."""
    from pycomlink.spatial.interpolator import clim_var_param

    date = str(day.astype("datetime64[D]")).replace("-", "")
    value = clim_var_param(date_str=date, time_scale_hours=every_min / 60)
    return Variogram.from_sill(float(value["sill"]), float(value["range"]), float(value["nugget"]))


def references(backend: CMLBackend, files: tuple[str | None, str | None]) -> tuple[Any, Any, str]:
    """Radar references for real data — the files given, else pycomlink's for its example
    — and what to call them."""
    if isinstance(backend, CMLSimulatorBackend):
        if any(files):
            option = "areal_reference" if files[0] else "path_reference"
            raise OptionError(
                "radar references apply to real data; the simulator has truth", option=option
            )
        return None, None, "none"
    areal_file, path_file = files
    label = "radar (" + ", ".join(Path(f).name for f in files if f is not None) + ")"
    if not any(files) and getattr(backend.options, "path", None) is None:
        areal_file, path_file = (str(path) for path in pycomlink_references())
        label = "radar (pycomlink's RADOLAN YW reference)"
    return (
        None if areal_file is None else areal_reference(areal_file),
        None if path_file is None else path_reference(path_file),
        label,
    )
