"""Radar rain references for CML data: areal fields and path averages, as shipped with
pycomlink (RADOLAN YW: 5-minute rainfall sums in mm on a 1 km grid, and the same radar
averaged along each link path). Both are returned as rain rates in mm/h."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import CMLDataError


def _rate(amount: Any, source: str) -> Any:
    """mm per interval -> mm/h, the interval read off the time axis."""
    step = np.median(np.diff(amount["time"].values[:100])) / np.timedelta64(1, "s")
    if not step > 0:
        raise CMLDataError(f"{source}: cannot tell the accumulation interval from its times")
    return amount * (3600.0 / step)


def _open(path: str | os.PathLike[str]) -> Any:
    import xarray as xr

    path = Path(path)
    if not path.is_file():
        raise CMLDataError(f"{path}: no such file")
    dataset = xr.open_dataset(path)
    if "rainfall_amount" not in dataset:
        raise CMLDataError(f"{path}: no variable rainfall_amount (mm per interval)")
    return dataset


def areal_reference(path: str | os.PathLike[str], days: Sequence[str] | None = None) -> Any:
    """Dataset with rain (time, y, x) in mm/h and 2-D coordinates latitudes, longitudes;
    only the frames of `days` (ISO dates) when given (the others are not read)."""
    dataset = _open(path)
    for name in ("latitudes", "longitudes"):
        if name not in dataset.variables:
            raise CMLDataError(f"{path}: no coordinate {name} (degrees per pixel)")
    amount = dataset["rainfall_amount"]
    if days is not None:
        day = amount["time"].values.astype("datetime64[D]")
        amount = amount.isel(time=np.isin(day, np.array(days, dtype="datetime64[D]")))
        if amount.sizes["time"] == 0:
            span = [np.datetime_as_string(t, "m") for t in dataset["time"].values[[0, -1]]]
            raise CMLDataError(
                f"{path}: no frames on {', '.join(days)}; the data hold {span[0]} to {span[1]}"
            )
    rain = _rate(amount, str(path)).assign_attrs(units="mm/h")
    return rain.to_dataset(name="rain")


def path_reference(path: str | os.PathLike[str]) -> Any:
    """DataArray (time, cml_id) of the radar's path-averaged rain in mm/h."""
    dataset = _open(path)
    if "cml_id" not in dataset["rainfall_amount"].dims:
        raise CMLDataError(f"{path}: rainfall_amount has no cml_id dimension")
    return _rate(dataset["rainfall_amount"], str(path)).assign_attrs(units="mm/h")


def pycomlink_references() -> tuple[Path, Path]:
    """(areal, path-averaged) radar references shipped with pycomlink's example data."""
    from importlib.resources import files

    folder = files("pycomlink.io") / "example_data"
    return (
        Path(str(folder / "example_areal_reference_data.nc")),
        Path(str(folder / "example_path_averaged_reference_data.nc")),
    )


def cell_means(
    x_km: Any,
    y_km: Any,
    frames: np.ndarray,
    cell_km: float,
    nx: int,
    ny: int,
    x0_km: float = 0.0,
    y0_km: float = 0.0,
) -> np.ndarray:
    """(steps, ny, nx): the values frames (steps, points) of points at (x_km, y_km) (any
    shape, km east and north of a grid's origin) averaged into the cells of `cell_km` km,
    nx × ny from (x0_km, y0_km), that their positions fall in. NaN values (no echo
    measured) and points outside the grid are left out; a cell without a measured point
    is NaN."""
    col = np.floor((np.ravel(x_km) - x0_km) / cell_km).astype(int)
    row = np.floor((np.ravel(y_km) - y0_km) / cell_km).astype(int)
    inside = (col >= 0) & (col < nx) & (row >= 0) & (row < ny)
    cells = (row * nx + col)[inside]
    means = np.empty((len(frames), nx * ny))
    for k, frame in enumerate(np.asarray(frames)[:, inside]):
        measured = np.isfinite(frame)
        counts = np.bincount(cells[measured], minlength=nx * ny).astype(float)
        sums = np.bincount(cells[measured], weights=frame[measured], minlength=nx * ny)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[k] = np.where(counts > 0, sums / counts, np.nan)
    return means.reshape(len(frames), ny, nx)
