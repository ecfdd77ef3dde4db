"""Events as a numpy structured array (t i64 in µs, x u16, y u16, p i8 in {0, 1}) with
the sensor size travelling beside them; Arrow record batches and Parquet files (sensor size
in the schema metadata); chunked iteration by time window or event count."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...errors import InputFileError

EVENT_FIELDS = ("t", "x", "y", "p")
EVENT_DTYPE = np.dtype([("t", "<i8"), ("x", "<u2"), ("y", "<u2"), ("p", "i1")], align=True)
"""t: µs; x, y: pixel (0 at the left / top); p: 1 ON (brighter), 0 OFF. Aligned, 16 bytes
(t first, as expelliarmus lays it out): the decoders write whole records at a time."""

SCHEMA = pa.schema([("t", pa.int64()), ("x", pa.uint16()), ("y", pa.uint16()), ("p", pa.int8())])


class EventError(InputFileError):
    """Events or an event file that break the rules; the message says where."""


def whole_numbers(values: np.ndarray, source: str, field: str) -> np.ndarray:
    """`values` as int64, refusing (EventError naming `field` and the first index) a
    non-finite value of a floating-point column, which a cast would make -2⁶³."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise EventError(
                f"{source}: field {field!r}: non-finite value {values[i]} at event {i} "
                f"({bad.size:,} such)"
            )
    return values.astype(np.int64, copy=False)


@dataclass(frozen=True)
class Events:
    """Events (EVENT_DTYPE, t non-decreasing) of a sensor `width` × `height` pixels."""

    array: np.ndarray
    width: int
    height: int

    def __post_init__(self) -> None:
        if self.array.dtype != EVENT_DTYPE:
            raise EventError(f"events must have dtype {EVENT_DTYPE}, got {self.array.dtype}")

    def __len__(self) -> int:
        return len(self.array)

    @property
    def duration_us(self) -> int:
        return int(self.array["t"][-1] - self.array["t"][0]) if len(self) else 0

    def check(self, source: str = "events") -> Events:
        """Raise EventError naming the first event outside the sensor or going back in time."""
        a = self.array
        outside = np.flatnonzero((a["x"] >= self.width) | (a["y"] >= self.height))
        if outside.size:
            i = int(outside[0])
            raise EventError(
                f"{source}: event {i} at x={a['x'][i]}, y={a['y'][i]} lies outside "
                f"the {self.width}×{self.height} sensor "
                f"({outside.size} such events)"
            )
        back = np.flatnonzero(np.diff(a["t"]) < 0)
        if back.size:
            i = int(back[0]) + 1
            raise EventError(
                f"{source}: timestamps go backwards at event {i} "
                f"({a['t'][i - 1]} µs → {a['t'][i]} µs)"
            )
        bad = np.flatnonzero((a["p"] != 0) & (a["p"] != 1))
        if bad.size:
            raise EventError(f"{source}: event {int(bad[0])} has polarity {a['p'][bad[0]]}")
        return self

    def to_arrow(self) -> pa.RecordBatch:
        metadata = {b"width": str(self.width).encode(), b"height": str(self.height).encode()}
        columns = [pa.array(self.array[name]) for name in EVENT_FIELDS]
        return pa.RecordBatch.from_arrays(columns, schema=SCHEMA.with_metadata(metadata))

    @classmethod
    def from_arrow(cls, batch: pa.RecordBatch | pa.Table) -> Events:
        metadata = batch.schema.metadata or {}
        if b"width" not in metadata or b"height" not in metadata:
            raise EventError("Arrow events carry no sensor size (width, height metadata)")
        array = np.empty(batch.num_rows, EVENT_DTYPE)
        for name in EVENT_FIELDS:
            array[name] = batch.column(name).to_numpy()
        return cls(array, int(metadata[b"width"]), int(metadata[b"height"]))

    def windows(
        self, *, duration_us: int | None = None, count: int | None = None
    ) -> Iterator[Events]:
        """Consecutive chunks of `duration_us` (aligned to the first event) or `count` events."""
        if (duration_us is None) == (count is None):
            raise ValueError("give exactly one of duration_us and count")
        if count is not None:
            edges = np.arange(0, len(self) + count, count).clip(max=len(self))
        else:
            t = self.array["t"]
            start = int(t[0]) if len(self) else 0
            assert duration_us is not None
            bounds: np.ndarray | list[int] = (
                np.arange(start, int(t[-1]) + duration_us + 1, duration_us) if len(self) else []
            )
            edges = np.searchsorted(t, bounds, side="left")
        for a, b in itertools.pairwise(edges):
            yield Events(self.array[a:b], self.width, self.height)


def write_parquet(events: Events, path: str | os.PathLike[str]) -> None:
    """One Parquet file (written to a temporary name, then renamed)."""
    import pyarrow.parquet as pq

    temporary = f"{os.fspath(path)}.part"
    pq.write_table(pa.Table.from_batches([events.to_arrow()]), temporary)
    os.replace(temporary, path)


def read_parquet(path: str | os.PathLike[str]) -> Events:
    import pyarrow.parquet as pq

    return Events.from_arrow(pq.read_table(path))
