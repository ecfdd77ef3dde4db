"""iniVation AEDAT4 files: read with the `aedat` package (Rust), written with dv-processing
(iniVation's own library), so each side is checked by the other's independent code."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .events import EVENT_DTYPE, EventError, Events


def read_aedat4(path: str | os.PathLike[str]) -> Events:
    """The first event stream of an AEDAT4 file (t in µs as stored, Unix time)."""
    try:
        import aedat
    except ImportError:
        raise EventError(f"{path}: reading AEDAT4 needs the 'aedat' package") from None
    try:
        decoder = aedat.Decoder(str(path))
    except Exception as error:  # the Rust decoder's own message says what is wrong
        raise EventError(f"{path}: not a readable AEDAT4 file: {error}") from None
    streams = {k: v for k, v in decoder.id_to_stream().items() if v["type"] == "events"}
    if not streams:
        raise EventError(f"{path}: no event stream in this AEDAT4 file")
    stream = min(streams)
    chunks = [packet["events"] for packet in decoder
              if packet["stream_id"] == stream and "events" in packet]  # fmt: skip
    if not chunks:
        return Events(np.empty(0, EVENT_DTYPE), streams[stream]["width"], streams[stream]["height"])
    raw = np.concatenate(chunks)
    array = np.empty(len(raw), EVENT_DTYPE)
    array["t"], array["x"], array["y"] = raw["t"], raw["x"], raw["y"]
    array["p"] = raw["on"]
    return Events(array, streams[stream]["width"], streams[stream]["height"]).check(str(path))


def write_aedat4(events: Events, path: str | os.PathLike[str], camera: str = "substrates"
                 ) -> None:  # fmt: skip
    """An AEDAT4 file with one event stream (written to a temporary name, then renamed)."""
    try:
        import dv_processing as dv
    except ImportError:
        raise EventError(f"{path}: writing AEDAT4 needs dv-processing") from None
    path = Path(path)
    events.check(str(path))
    temporary = path.with_name(f".{path.stem}.part.aedat4")  # dv-processing wants .aedat4
    config = dv.io.MonoCameraWriter.EventOnlyConfig(camera, (events.width, events.height))
    writer = dv.io.MonoCameraWriter(str(temporary), config)
    store = dv.EventStore()
    a = events.array
    for t, x, y, p in zip(a["t"].tolist(), a["x"].tolist(), a["y"].tolist(), a["p"].tolist(),
                          strict=True):  # fmt: skip
        store.push_back(t, x, y, bool(p))
    writer.writeEvents(store)
    del writer  # closes the file
    os.replace(temporary, path)
