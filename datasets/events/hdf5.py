"""Plain HDF5 event files in the DSEC layout: a group `events` with 1-D datasets x, y, t, p
(t in µs, plus an optional scalar `t_offset`), and the sensor size as `width` / `height`
attributes of the group where known (h5py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .events import EVENT_DTYPE, EventError, Events


def read_hdf5(
    path: str | os.PathLike[str], width: int | None = None, height: int | None = None
) -> Events:
    """The events of an HDF5 file; the sensor size from the attributes, the caller, or the
    largest coordinates. A damaged file is an EventError, whatever h5py raises."""
    import h5py

    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise EventError(f"{path}: not a readable HDF5 file: {error}") from None
    with handle:
        try:
            array, width, height = _read_group(handle, path, width, height)
        except (RuntimeError, OSError, KeyError, ValueError, TypeError) as error:
            raise EventError(f"{path}: a damaged HDF5 file: {error}") from None
    return Events(array, width, height).check(str(path))


def _read_group(
    handle: Any, path: str | os.PathLike[str], width: int | None, height: int | None
) -> tuple[np.ndarray, int, int]:
    """The events array and the sensor size from an open file."""
    if "events" not in handle or not {"x", "y", "t", "p"} <= set(handle["events"]):
        raise EventError(f"{path}: no group 'events' with datasets x, y, t, p")
    group = handle["events"]
    sizes = {name: group[name].shape for name in "xytp"}
    if len({shape[0] if shape else -1 for shape in sizes.values()}) != 1:
        raise EventError(f"{path}: events/x, y, t, p differ in length: {sizes}")
    array = np.empty(sizes["t"][0], EVENT_DTYPE)
    offset = int(handle["t_offset"][()]) if "t_offset" in handle else 0
    array["t"] = group["t"][:].astype(np.int64) + offset
    array["x"], array["y"], array["p"] = group["x"][:], group["y"][:], group["p"][:]
    width = int(group.attrs.get("width", width or 0)) or int(array["x"].max(initial=0)) + 1
    height = int(group.attrs.get("height", height or 0)) or int(array["y"].max(initial=0)) + 1
    return array, width, height


def write_hdf5(events: Events, path: str | os.PathLike[str]) -> None:
    """A DSEC-layout HDF5 file with the sensor size attributes (temporary name, renamed)."""
    import h5py

    path = Path(path)
    events.check(str(path))
    temporary = path.with_name(f".{path.name}.part")
    with h5py.File(temporary, "w") as handle:
        group = handle.create_group("events")
        for name, kind in (("x", "u2"), ("y", "u2"), ("t", "i8"), ("p", "u1")):
            group.create_dataset(name, data=events.array[name].astype(kind), compression="gzip")
        group.attrs["width"], group.attrs["height"] = events.width, events.height
    os.replace(temporary, path)
