"""Plain HDF5 event files in the DSEC layout: a group `events` with 1-D datasets x, y, t, p
(t in µs, plus an optional scalar `t_offset`), and the sensor size as `width` / `height`
attributes of the group where known (h5py).

What a file declares is checked before anything is allocated: every column's chunks must
have been written (HDF5 reads a chunk never written as fill values: a 3 KB file can
declare 10⁸ events), none may live outside the file (external or virtual storage), and the
events must fit `max_events` (MAX_EVENTS by default; 16 bytes each in memory). Columns are
then read window by window into the one events array."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..hdf5_storage import unwritten
from .events import EVENT_DTYPE, EventError, Events, whole_numbers

MAX_EVENTS = 1 << 26
"""Events read from one HDF5 file at most, unless the caller sets `max_events`: 67,108,864
events, 1 GiB in memory."""
WINDOW = 1 << 22
"""Events read from a column at a time (a window's copy is all the reading adds)."""


def read_hdf5(
    path: str | os.PathLike[str],
    width: int | None = None,
    height: int | None = None,
    *,
    max_events: int = MAX_EVENTS,
) -> Events:
    """The events of an HDF5 file; the sensor size from the attributes, the caller, or the
    largest coordinates. A damaged file, or one declaring more than `max_events` events,
    is an EventError naming the field, whatever h5py raises.

    Example:
        >>> import numpy as np, tempfile, pathlib
        >>> from substrates.datasets.events import Events
        >>> from substrates.datasets.events.events import EVENT_DTYPE
        >>> from substrates.datasets.events.hdf5 import read_hdf5, write_hdf5
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "e.h5"
        >>> write_hdf5(Events(np.zeros(3, EVENT_DTYPE), 4, 4), path)
        >>> len(read_hdf5(path))
        3
    """
    import h5py

    try:
        handle = h5py.File(path, "r")
    except OSError as error:
        raise EventError(f"{path}: not a readable HDF5 file: {error}") from None
    with handle:
        try:
            array, width, height = _read_group(handle, path, width, height, max_events)
        except EventError:
            raise
        except (RuntimeError, OSError, KeyError, ValueError, TypeError) as error:
            raise EventError(f"{path}: a damaged HDF5 file: {error}") from None
    return Events(array, width, height).check(str(path))


def _read_group(
    handle: Any, path: str | os.PathLike[str], width: int | None, height: int | None, limit: int
) -> tuple[np.ndarray, int, int]:
    """The events array and the sensor size from an open file."""
    if "events" not in handle or not {"x", "y", "t", "p"} <= set(handle["events"]):
        raise EventError(f"{path}: no group 'events' with datasets x, y, t, p")
    group = handle["events"]
    sizes = {name: group[name].shape for name in "xytp"}
    if any(len(shape) != 1 for shape in sizes.values()):
        raise EventError(f"{path}: events/x, y, t, p must be 1-D; shapes {sizes}")
    if len({shape[0] for shape in sizes.values()}) != 1:
        raise EventError(f"{path}: events/x, y, t, p differ in length: {sizes}")
    count = sizes["t"][0]
    for name in "xytp":
        reason = unwritten(group[name])
        if reason is not None:
            raise EventError(f"{path}: field 'events/{name}': {reason}")
    if count > limit:
        raise EventError(
            f"{path}: field 'events/t': {count:,} events, more than the {limit:,} read at "
            f"once ({count * EVENT_DTYPE.itemsize / 2**30:.1f} GiB; budget max_events)"
        )
    array = np.empty(count, EVENT_DTYPE)
    offset = int(handle["t_offset"][()]) if "t_offset" in handle else 0
    for start in range(0, count, WINDOW):
        window = slice(start, min(start + WINDOW, count))
        for name in "xytp":
            values = group[name][window]
            if name == "t":
                values = whole_numbers(values, str(path), "events/t") + offset
            array[name][window] = values
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
