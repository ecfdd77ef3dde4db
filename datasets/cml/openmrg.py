"""The OpenMRG layout (Andersson et al. 2022, ESSD 14:5411): `cml/cml.nc` with rsl and tsl
(dBm) over dims (sublink, time), and `cml/cml_metadata.csv` with one row per sublink:
Sublink, Link, Direction, Frequency_GHz, Polarization, Length_km, NearLatitude_DecDeg,
NearLongitude_DecDeg, FarLatitude_DecDeg, FarLongitude_DecDeg. Read into the OpenSense
convention: cml_id = Link, sublink_id = Direction, ends from the first direction's row."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .errors import CMLDataError

COLUMNS = (
    "Sublink",
    "Link",
    "Direction",
    "Frequency_GHz",
    "Polarization",
    "Length_km",
    "NearLatitude_DecDeg",
    "NearLongitude_DecDeg",
    "FarLatitude_DecDeg",
    "FarLongitude_DecDeg",
)
_ENDS = {
    "site_0_lat": "NearLatitude_DecDeg",
    "site_0_lon": "NearLongitude_DecDeg",
    "site_1_lat": "FarLatitude_DecDeg",
    "site_1_lon": "FarLongitude_DecDeg",
}


def openmrg_files(folder: str | os.PathLike[str]) -> tuple[Path, Path] | None:
    """(cml.nc, cml_metadata.csv) in `folder` or its `cml/` subfolder, if both are there."""
    for place in (Path(folder), Path(folder) / "cml"):
        data, metadata = place / "cml.nc", place / "cml_metadata.csv"
        if data.is_file() and metadata.is_file():
            return data, metadata
    return None


def read_openmrg(data_path: str | os.PathLike[str], metadata_path: str | os.PathLike[str]) -> Any:
    """The OpenMRG files as one lazy OpenSense Dataset (not yet validated): nothing is
    read from cml.nc until a time range is loaded. Every link must have the same
    directions (OpenMRG's 364 links have A and B)."""
    import pandas as pd
    import xarray as xr

    metadata = pd.read_csv(metadata_path)
    missing = [c for c in COLUMNS if c not in metadata.columns]
    if missing:
        raise CMLDataError(f"{metadata_path}: missing columns {', '.join(missing)}")
    data = xr.open_dataset(data_path)
    if "sublink" not in data.dims:
        raise CMLDataError(f"{data_path}: no 'sublink' dimension (OpenMRG layout expected)")
    rows = metadata.set_index("Sublink")
    unknown = np.setdiff1d(data["sublink"].values, rows.index.values)
    if len(unknown):
        raise CMLDataError(f"{metadata_path}: no row for sublink {unknown[0]} of {data_path}")
    rows = rows.loc[data["sublink"].values]
    rows = rows.assign(position=np.arange(len(rows)), Link=rows["Link"].astype(str))
    table = rows.pivot(index="Link", columns="Direction", values="position")
    if table.isna().any().any():
        odd = table.index[table.isna().any(axis=1)][:5]
        raise CMLDataError(
            f"{metadata_path}: links {', '.join(map(str, odd))} lack a direction that others have"
        )
    position = table.to_numpy(dtype=int)  # (links, directions) -> index into sublink
    dims = ("cml_id", "sublink_id")
    picked = data[["rsl", "tsl"]].isel(sublink=xr.DataArray(position, dims=dims))
    first = rows.iloc[position[:, 0]]
    coords = {
        "cml_id": table.index.to_numpy(),
        "sublink_id": table.columns.astype(str).to_numpy(),
        "frequency": (dims, rows["Frequency_GHz"].to_numpy(float)[position], {"units": "GHz"}),
        "polarization": (dims, rows["Polarization"].astype(str).to_numpy()[position]),
        "length": ("cml_id", first["Length_km"].to_numpy(float), {"units": "km"}),
        **{name: ("cml_id", first[column].to_numpy(float)) for name, column in _ENDS.items()},
    }
    return picked.drop_vars("sublink", errors="ignore").assign_coords(coords)
