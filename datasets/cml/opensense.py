"""The OpenSense data convention for commercial microwave links, as an xarray Dataset.

dims (cml_id, sublink_id, time); data variables rsl and tsl in dBm; coordinates
frequency (GHz, per cml_id × sublink_id), polarization ('h' or 'v'), length (km),
site_0_lat/lon and site_1_lat/lon (degrees). Fencl et al. 2024, Open Res Eur 3:169.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import CMLDataError

DIMS = ("cml_id", "sublink_id", "time")
VARIABLES = ("rsl", "tsl")
COORDINATES = (
    "frequency", "polarization", "length", "site_0_lat", "site_0_lon", "site_1_lat", "site_1_lon",
)  # fmt: skip
FILL_VALUES = {"tsl": 255.0, "rsl": -99.9}
"""Values operators write for 'no measurement' (dBm)."""

_POLARIZATIONS = {"h": "h", "horizontal": "h", "v": "v", "vertical": "v"}
_PYCOMLINK_NAMES = {
    "channel_id": "sublink_id",
    "site_a_latitude": "site_0_lat", "site_a_longitude": "site_0_lon",
    "site_b_latitude": "site_1_lat", "site_b_longitude": "site_1_lon",
}  # fmt: skip
_FREQUENCY_UNITS = {"GHz": (0.5, 1000.0, 1.0), "MHz": (5e2, 1e6, 1e-3), "Hz": (5e8, 1e12, 1e-9)}
"""unit: (smallest, largest plausible value, factor to GHz). CMLs run at about 1–100 GHz,
so the three ranges cannot be confused."""


@dataclass
class Cleaning:
    """What `validate` changed, counted: nothing is dropped silently."""

    fill_values: dict[str, int] = field(default_factory=dict)
    renamed: dict[str, str] = field(default_factory=dict)
    polarization_spellings: int = 0
    frequency_converted_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fill_values_set_to_nan": self.fill_values,
            "renamed": self.renamed,
            "polarization_spellings_normalised": self.polarization_spellings,
            "frequency_converted_from": self.frequency_converted_from,
        }


def validate(dataset: Any, source: str = "dataset") -> tuple[Any, Cleaning]:
    """Check names, dims and units and normalise polarization spellings, without loading
    the time series (fill values are masked per time range by `mask_fill_values`).

    Accepts pycomlink's older layout (channel_id, site_a_latitude, ...) and renames it.
    Raises CMLDataError naming `source` and the offending variable.
    """
    cleaning = Cleaning()
    rename = {k: v for k, v in _PYCOMLINK_NAMES.items() if k in dataset.variables}
    if rename:
        dataset = dataset.rename(rename)
        cleaning.renamed = rename
    missing = [n for n in (*VARIABLES, *COORDINATES) if n not in dataset.variables]
    if missing:
        raise CMLDataError(f"{source}: missing {', '.join(missing)} (OpenSense names expected)")
    for name in VARIABLES:
        if set(dataset[name].dims) != set(DIMS):
            raise CMLDataError(f"{source}: {name} has dims {dataset[name].dims}, expected {DIMS}")
    dataset = dataset.transpose(*DIMS, ...)

    dataset = _frequency_in_ghz(dataset, source, cleaning)
    length = np.asarray(dataset["length"].values, dtype=float)
    if np.any(~(length > 0)):
        bad = [str(c) for c in np.asarray(dataset["cml_id"].values)[~(length > 0)][:5]]
        raise CMLDataError(f"{source}: links of zero or missing length: cml_id {', '.join(bad)}")

    _coordinates_match_length(dataset, length, source)

    raw = np.asarray(dataset["polarization"].values).astype(str)
    lowered = np.char.lower(np.char.strip(raw))
    unknown = sorted(str(p) for p in set(lowered.ravel()) - set(_POLARIZATIONS))
    if unknown:
        raise CMLDataError(
            f"{source}: unknown polarization {unknown[:5]}; allowed: h, v, horizontal, vertical"
        )
    normalised = np.vectorize(_POLARIZATIONS.__getitem__)(lowered)
    cleaning.polarization_spellings = int(np.sum(normalised != raw))
    dataset = dataset.assign_coords(polarization=(dataset["polarization"].dims, normalised))

    return dataset, cleaning


LENGTH_TOLERANCE_KM = 1.0
LENGTH_TOLERANCE = 0.5
"""A link's `length` may differ from the distance between its sites by this much (km) and
this share of the length before the file is refused: it catches swapped coordinates and
lengths in metres, which would otherwise give maps thousands of km wide or no rain."""


def _coordinates_match_length(dataset: Any, length: np.ndarray, source: str) -> None:
    """Refuse links whose site coordinates contradict their `length` (km)."""
    names = ("site_0_lat", "site_0_lon", "site_1_lat", "site_1_lon")
    lat0, lon0, lat1, lon1 = (np.radians(np.asarray(dataset[n].values, float)) for n in names)
    half = (
        np.sin((lat1 - lat0) / 2) ** 2
        + np.cos(lat0) * np.cos(lat1) * np.sin((lon1 - lon0) / 2) ** 2
    )
    distance = 2 * 6371.0 * np.arcsin(np.sqrt(np.clip(half, 0, 1)))
    gap = np.abs(distance - length)
    bad = (gap > LENGTH_TOLERANCE_KM) & (gap > LENGTH_TOLERANCE * length)
    if np.any(bad):
        first = int(np.flatnonzero(bad)[0])
        ids = np.asarray(dataset["cml_id"].values)
        raise CMLDataError(
            f"{source}: {int(bad.sum())} links' coordinates contradict their length, e.g. "
            f"cml_id {ids[first]}: sites {distance[first]:.1f} km apart, length "
            f"{length[first]:g} (km expected; lat/lon swapped, or length in metres?)"
        )


def _frequency_in_ghz(dataset: Any, source: str, cleaning: Cleaning) -> Any:
    """Frequencies in GHz: a declared `units` attribute is trusted; without one, the unit
    is read off the magnitude (Hz, MHz or GHz) and the conversion recorded."""
    frequency = np.asarray(dataset["frequency"].values, dtype=float)
    declared = dataset["frequency"].attrs.get("units")
    if declared is not None and declared not in _FREQUENCY_UNITS:
        raise CMLDataError(f"{source}: frequency units {declared!r}; allowed: GHz, MHz, Hz")
    low, high = np.nanmin(frequency), np.nanmax(frequency)
    candidates = [declared] if declared else list(_FREQUENCY_UNITS)
    unit = next(
        (u for u in candidates if _FREQUENCY_UNITS[u][0] <= low and high <= _FREQUENCY_UNITS[u][1]),
        None,
    )
    if unit is None:
        raise CMLDataError(
            f"{source}: frequency from {low:g} to {high:g}"
            + (f" {declared}" if declared else "")
            + " is no microwave-link band in GHz, MHz or Hz"
        )
    if unit != "GHz":
        cleaning.frequency_converted_from = unit
    converted = dataset["frequency"] * _FREQUENCY_UNITS[unit][2]
    return dataset.assign_coords(frequency=converted.assign_attrs(units="GHz"))


def mask_fill_values(dataset: Any, cleaning: Cleaning) -> Any:
    """Replace operators' fill values (tsl 255, rsl −99.9 dBm) with NaN, counting them."""
    for name, fill in FILL_VALUES.items():
        values = dataset[name]
        hit = values == fill
        cleaning.fill_values[name] = cleaning.fill_values.get(name, 0) + int(hit.sum())
        dataset[name] = values.where(~hit)
        dataset[name].attrs["units"] = "dBm"
    return dataset


def open_dataset(path: str | os.PathLike[str]) -> tuple[Any, Cleaning]:
    """Read an OpenSense (or pycomlink-layout) netCDF file, or a folder in the OpenMRG
    layout (cml.nc + cml_metadata.csv, see openmrg.py), and validate it."""
    import xarray as xr

    from .openmrg import openmrg_files, read_openmrg

    path = Path(path)
    if path.is_dir():
        files = openmrg_files(path)
        if files is None:
            raise CMLDataError(f"{path}: a folder without cml.nc and cml_metadata.csv")
        try:
            return validate(read_openmrg(*files), source=str(files[0]))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
            if isinstance(err, CMLDataError):
                raise
            raise CMLDataError(f"{files[0]}: not readable in the OpenMRG layout: {err}") from err
    if not path.is_file():
        raise CMLDataError(f"{path}: no such file")
    try:
        dataset = xr.open_dataset(path)
    except (OSError, ValueError) as err:
        raise CMLDataError(f"{path}: not a readable netCDF file: {err}") from err
    return validate(dataset, source=str(path))


def pycomlink_example() -> Path:
    """The real CML data file shipped inside the pycomlink wheel (500 links, 10 days)."""
    from importlib.resources import files

    return Path(str(files("pycomlink.io") / "example_data" / "example_cml_data.nc"))


def to_parquet(dataset: Any, path: str | os.PathLike[str]) -> None:
    """One row per (cml_id, sublink_id, time) with the link's metadata; written atomically."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = dataset[list(VARIABLES)].to_dataframe().reset_index()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(
        {"convention": "OpenSense", "rsl": "dBm", "tsl": "dBm", "frequency": "GHz", "length": "km"}
    )
    path = Path(path)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as handle:
        pq.write_table(table, handle)
    os.replace(handle.name, path)
