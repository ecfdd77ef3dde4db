"""The OpenSense data convention for commercial microwave links, as an xarray Dataset.

As files hold it (OpenSenseAction/OS_data_format_conventions, netCDF_CML.adoc; Fencl et
al. 2024, Open Res Eur 3:169): dims (cml_id, sublink_id, time); rsl and tsl in dBm (one
of them may be absent when it is held constant); frequency in MHz per cml_id ×
sublink_id; `polarisation` 'vertical' or 'horizontal' (recommended); `length` in metres
(optional); site_0_lat/lon and site_1_lat/lon in degrees.

As `validate` returns it: the same names with `polarization` spelled with a z and 'h' or
'v', frequency in GHz, length in km, rsl and tsl in dBm once a window is loaded
(`mask_fill_values`). Every unit is read from the file's `units` attribute and converted
or refused; where a file declares none, the unit is inferred (frequency from its
magnitude, length from the site coordinates) and the inference recorded in `Cleaning`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..formats import FOLDER, Format, Formats
from ..hdf5_storage import unwritten
from .errors import CMLDataError

DIMS = ("cml_id", "sublink_id", "time")
VARIABLES = ("rsl", "tsl")
SITES = ("site_0_lat", "site_0_lon", "site_1_lat", "site_1_lon")
COORDINATES = ("frequency", "polarization", "length", *SITES)
FILL_VALUES = {"tsl": 255.0, "rsl": -99.9}
"""Values operators write for 'no measurement' (dBm)."""

_POLARIZATIONS = {"h": "h", "horizontal": "h", "v": "v", "vertical": "v"}
_PYCOMLINK_NAMES = {
    "channel_id": "sublink_id",
    "site_a_latitude": "site_0_lat",
    "site_a_longitude": "site_0_lon",
    "site_b_latitude": "site_1_lat",
    "site_b_longitude": "site_1_lon",
}
_LENGTH_UNITS = {
    "km": 1.0,
    "kilometre": 1.0,
    "kilometres": 1.0,
    "kilometer": 1.0,
    "kilometers": 1.0,
    "m": 1e-3,
    "metre": 1e-3,
    "metres": 1e-3,
    "meter": 1e-3,
    "meters": 1e-3,
}
"""Spellings of a length unit: factor to km."""
_POWER_UNITS = {"dbm": None, "mw": "mW", "w": "W", "dbw": "dBW"}
"""Spellings (lower case) of a signal-level unit: the unit converted from, None for dBm."""
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
    length_unit: str = "km"
    """The unit `length` was read in: as declared ('m', 'km'), inferred from the site
    coordinates ('m (inferred)'), or 'computed from the coordinates' where absent."""
    levels_converted_from: dict[str, str] = field(default_factory=dict)
    """rsl/tsl read in another unit than dBm (mW, W, dBW) and converted to dBm."""
    levels_assumed_dbm: list[str] = field(default_factory=list)
    """rsl/tsl without a `units` attribute (dBm assumed)."""
    levels_not_positive: dict[str, int] = field(default_factory=dict)
    """Values ≤ 0 in a linear unit (mW, W): no level in dBm, set to NaN."""
    constant_level: str | None = None
    """rsl or tsl absent (the convention allows the constant one to be left out): taken
    as 0 dBm, which the baseline removes."""
    links_without_data: list[str] = field(default_factory=list)
    """Links whose rsl is NaN throughout a loaded period (skipped there)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "fill_values_set_to_nan": self.fill_values,
            "renamed": self.renamed,
            "polarization_spellings_normalised": self.polarization_spellings,
            "frequency_converted_from": self.frequency_converted_from,
            "length_unit": self.length_unit,
            "levels_converted_to_dbm_from": self.levels_converted_from,
            "levels_assumed_dbm": self.levels_assumed_dbm,
            "levels_not_positive_set_to_nan": self.levels_not_positive,
            "constant_level": self.constant_level,
            "links_without_data": self.links_without_data,
        }


def validate(dataset: Any, source: str = "dataset") -> tuple[Any, Cleaning]:
    """Check names, dims and units, convert units and normalise polarization spellings,
    without loading the time series (fill values and level units are applied per time
    range by `mask_fill_values`).

    Accepts pycomlink's older layout (channel_id, site_a_latitude, ...) and renames it.
    Raises CMLDataError naming `source` and the offending variable.
    """
    cleaning = Cleaning()
    rename = {k: v for k, v in _PYCOMLINK_NAMES.items() if k in dataset.variables}
    if "polarisation" in dataset.variables:
        if "polarization" in dataset.variables:
            raise CMLDataError(f"{source}: both polarisation and polarization; keep one")
        rename["polarisation"] = "polarization"
    if rename:
        dataset = dataset.rename(rename)
        cleaning.renamed = rename
    dataset = _one_level_may_be_constant(dataset, source, cleaning)
    required = [n for n in (*VARIABLES, *COORDINATES) if n != "length"]
    missing = [n for n in required if n not in dataset.variables]
    if missing:
        raise CMLDataError(f"{source}: missing {', '.join(missing)} (OpenSense names expected)")
    for name in VARIABLES:
        if set(dataset[name].dims) != set(DIMS):
            raise CMLDataError(f"{source}: {name} has dims {dataset[name].dims}, expected {DIMS}")
        _level_unit(dataset[name], name, source, cleaning)
    dataset = dataset.transpose(*DIMS, ...)

    dataset = _frequency_in_ghz(dataset, source, cleaning)
    distance = _site_distance_km(dataset)
    dataset = _length_in_km(dataset, distance, source, cleaning)
    length = np.asarray(dataset["length"].values, dtype=float)
    if np.any(~(length > 0)):
        bad = [str(c) for c in np.asarray(dataset["cml_id"].values)[~(length > 0)][:5]]
        raise CMLDataError(f"{source}: links of zero or missing length: cml_id {', '.join(bad)}")

    _coordinates_match_length(dataset, length, distance, source)

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


def _one_level_may_be_constant(dataset: Any, source: str, cleaning: Cleaning) -> Any:
    """The convention lets a file leave out whichever of rsl and tsl is held constant:
    the absent one becomes 0 dBm (the chain's baseline removes any constant)."""
    present = [n for n in VARIABLES if n in dataset.variables]
    if len(present) != 1:
        return dataset  # both (fine) or neither (reported as missing)
    (kept,) = present
    absent = "tsl" if kept == "rsl" else "rsl"
    cleaning.constant_level = absent
    import xarray as xr

    like = dataset[kept]  # zeros broadcast over its shape: no copy, nothing read
    constant = xr.DataArray(
        np.broadcast_to(np.float64(0.0), like.shape),
        dims=like.dims,
        coords=like.coords,
        attrs={"units": "dBm"},
    )
    return dataset.assign({absent: constant})


def _level_unit(array: Any, name: str, source: str, cleaning: Cleaning) -> None:
    """Record how `name` is to be converted to dBm when loaded; refuse a unit that is not
    a power level."""
    declared = array.attrs.get("units")
    if declared is None:
        cleaning.levels_assumed_dbm.append(name)
        return
    key = str(declared).strip().lower()
    if key not in _POWER_UNITS:
        raise CMLDataError(f"{source}: {name} units {declared!r}; allowed: dBm, dBW, mW, W")
    converted = _POWER_UNITS[key]
    if converted is not None:
        cleaning.levels_converted_from[name] = converted


def _site_distance_km(dataset: Any) -> np.ndarray:
    """Great-circle distance (km) between each link's two sites."""
    lat0, lon0, lat1, lon1 = (np.radians(np.asarray(dataset[n].values, float)) for n in SITES)
    half = (
        np.sin((lat1 - lat0) / 2) ** 2
        + np.cos(lat0) * np.cos(lat1) * np.sin((lon1 - lon0) / 2) ** 2
    )
    return 2 * 6371.0 * np.arcsin(np.sqrt(np.clip(half, 0, 1)))


def _length_in_km(dataset: Any, distance: np.ndarray, source: str, cleaning: Cleaning) -> Any:
    """`length` in km: converted from its declared unit; without one, read in the unit
    (m or km) that agrees with the site coordinates for more links; computed from the
    coordinates where the file has no `length` (it is optional in the convention)."""
    if "length" not in dataset.variables:
        cleaning.length_unit = "computed from the coordinates"
        return dataset.assign_coords(length=("cml_id", distance, {"units": "km"}))
    values = np.asarray(dataset["length"].values, dtype=float)
    declared = dataset["length"].attrs.get("units")
    if declared is not None:
        unit = str(declared).strip()
        if unit.lower() not in _LENGTH_UNITS:
            raise CMLDataError(f"{source}: length units {declared!r}; allowed: m, km")
        cleaning.length_unit = unit
        factor = _LENGTH_UNITS[unit.lower()]
    else:
        fits = {
            u: int(np.sum(_agrees(values * f, distance))) for u, f in (("km", 1.0), ("m", 1e-3))
        }
        unit = "m" if fits["m"] > fits["km"] else "km"
        cleaning.length_unit = f"{unit} (inferred from the coordinates)"
        factor = _LENGTH_UNITS[unit]
    return dataset.assign_coords(length=("cml_id", values * factor, {"units": "km"}))


def _agrees(length_km: np.ndarray, distance_km: np.ndarray) -> np.ndarray:
    gap = np.abs(distance_km - length_km)
    return (gap <= LENGTH_TOLERANCE_KM) | (gap <= LENGTH_TOLERANCE * length_km)


LENGTH_TOLERANCE_KM = 1.0
LENGTH_TOLERANCE = 0.5
"""A link's `length` may differ from the distance between its sites by this much (km) and
this share of the length before the file is refused: it catches swapped coordinates and
lengths in metres, which would otherwise give maps thousands of km wide or no rain."""


def _coordinates_match_length(
    dataset: Any, length: np.ndarray, distance: np.ndarray, source: str
) -> None:
    """Refuse links whose site coordinates contradict their `length` (km)."""
    bad = ~_agrees(length, distance)
    if np.any(bad):
        first = int(np.flatnonzero(bad)[0])
        ids = np.asarray(dataset["cml_id"].values)
        raise CMLDataError(
            f"{source}: {int(bad.sum())} links' coordinates contradict their length, e.g. "
            f"cml_id {ids[first]}: sites {distance[first]:.1f} km apart, length "
            f"{length[first]:g} km (lat/lon swapped, or a wrong length unit?)"
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
    """Levels in dBm (converted from mW, W or dBW as `validate` found them declared, values
    ≤ 0 in a linear unit counted and set to NaN); operators' fill values (tsl 255,
    rsl −99.9 dBm, in files that hold dBm) replaced with NaN, counted."""
    for name, fill in FILL_VALUES.items():
        values = dataset[name]
        unit = cleaning.levels_converted_from.get(name)
        if unit is None:
            hit = values == fill
            cleaning.fill_values[name] = cleaning.fill_values.get(name, 0) + int(hit.sum())
            values = values.where(~hit)
        elif unit == "dBW":
            values = values + 30.0
        else:
            positive = values > 0
            cleaning.levels_not_positive[name] = cleaning.levels_not_positive.get(name, 0) + int(
                (~positive & values.notnull()).sum()
            )
            milliwatts = values.where(positive) * (1e3 if unit == "W" else 1.0)
            values = 10 * np.log10(milliwatts)
        dataset[name] = values.assign_attrs(units="dBm")
    return dataset


def open_dataset(path: str | os.PathLike[str]) -> tuple[Any, Cleaning]:
    """Read an OpenSense (or pycomlink-layout) netCDF file, or a folder in the OpenMRG
    layout (cml.nc + cml_metadata.csv, see openmrg.py), through FORMATS, and validate it."""
    return FORMATS.read(path)


def _read_netcdf(path: Path) -> tuple[Any, Cleaning]:
    import xarray as xr

    if not path.is_file():
        raise CMLDataError(f"{path}: no such file")
    _looks_like_netcdf(path)
    _check_storage(path)
    try:
        dataset = xr.open_dataset(path)
    except (OSError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CMLDataError(f"{path}: not a readable netCDF file: {first}") from err
    return validate(dataset, source=str(path))


UNWRITTEN_ALLOWANCE_BYTES = 64 << 20
"""Values a netCDF-4 variable may declare without storing them (bytes): a writer may leave
a dead link's chunks unwritten (they read as missing); more is refused."""


def _check_storage(path: Path) -> None:
    """A netCDF-4 file (HDF5) whose variables declare values the file does not hold (chunks
    never written: a 15 KB file can declare 10⁸ samples a link) is refused naming the
    variable, before xarray reads any of it; classic netCDF stores every value it declares."""
    with path.open("rb") as handle:
        if handle.read(8) != NETCDF_MAGIC[-1]:
            return
    import h5py

    try:
        handle = h5py.File(path, "r")
    except OSError:
        return  # xarray names what is wrong
    found: list[tuple[str, str]] = []

    def visit(name: str, item: Any) -> None:
        if isinstance(item, h5py.Dataset) and not found and not _bare_dimension(item):
            reason = unwritten(item, UNWRITTEN_ALLOWANCE_BYTES)
            if reason is not None:
                found.append((name, reason))

    with handle:
        try:
            handle.visititems(visit)
        except (RuntimeError, OSError, ValueError, KeyError, TypeError):
            return  # a damaged file: xarray's reading names what is wrong
    if found:
        name, reason = found[0]
        raise CMLDataError(f"{path}: field {name!r}: {reason}")


def _bare_dimension(dataset: Any) -> bool:
    """A dimension without a coordinate variable: netCDF-4 stores it as an HDF5 dataset it
    never writes (no one reads its values)."""
    name = dataset.attrs.get("NAME", b"")
    text = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    return text.startswith("This is a netCDF dimension but not a netCDF variable")


def _read_openmrg_folder(path: Path) -> tuple[Any, Cleaning]:
    from .openmrg import openmrg_files, read_openmrg

    found = openmrg_files(path)
    if found is None:
        raise CMLDataError(f"{path}: a folder without cml.nc and cml_metadata.csv")
    try:
        return validate(read_openmrg(*found), source=str(found[0]))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        if isinstance(err, CMLDataError):
            raise
        raise CMLDataError(f"{found[0]}: not readable in the OpenMRG layout: {err}") from err


FORMATS: Formats[tuple[Any, Cleaning]] = Formats(
    "CML data",
    [
        Format("opensense", "OpenSense netCDF", (".nc", ".nc4", ".netcdf"), _read_netcdf),
        Format("openmrg", "OpenMRG: cml.nc + cml_metadata.csv", (FOLDER,), _read_openmrg_folder),
    ],
    error=CMLDataError,
)
"""The CML data formats: readers take the path and give (dataset, Cleaning), validated."""


NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")
"""First bytes of netCDF classic, 64-bit offset, CDF-5 and netCDF-4 (HDF5) files."""


def _looks_like_netcdf(path: Path) -> None:
    """One line for the files people hand over by mistake: empty, text (CSV), other."""
    with path.open("rb") as handle:
        head = handle.read(8)
    if not head:
        raise CMLDataError(f"{path}: empty file")
    if head.startswith(NETCDF_MAGIC):
        return
    if all(32 <= b < 127 or b in b"\t\r\n" for b in head):
        raise CMLDataError(
            f"{path}: a text file (CSV?), not netCDF; the OpenSense convention "
            "is netCDF (OpenMRG's CSV metadata: give the folder holding cml.nc "
            "and cml_metadata.csv)"
        )
    raise CMLDataError(f"{path}: not a netCDF file (first bytes {head[:4]!r})")


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
