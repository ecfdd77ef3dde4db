"""iniVation AEDAT4 files: read with the `aedat` package (Rust), written with dv-processing
(iniVation's own library), so each side is checked by the other's independent code."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import numpy as np

from .events import EVENT_DTYPE, EventError, Events

MEMORY_PER_BYTE = 64
"""The decoder may use this many bytes of memory per byte of file (compressed packets
expand), on top of MEMORY_BASE."""
MEMORY_BASE = 1 << 30
SECONDS_BASE = 60.0
SECONDS_PER_MB = 2.0
MAGIC = b"#!AER-DAT4.0\r\n"


def check_layout(path: str | os.PathLike[str]) -> int:
    """Walk the file's declared sizes before any decoding: the IOHeader's length, then
    each packet's (stream id i32, size u32, little-endian) up to the data table the header
    points at; a size that runs past the file is an EventError naming the packet and its
    byte. Returns the number of packets."""
    path = Path(path)
    total = path.stat().st_size
    with path.open("rb") as handle:
        if handle.read(len(MAGIC)) != MAGIC:
            raise EventError(f"{path}: not AEDAT4 (no '#!AER-DAT4.0' line)")
        header_bytes = _u32(handle.read(4), path, "header length", len(MAGIC))
        start = len(MAGIC) + 4
        if header_bytes > total - start:
            raise EventError(
                f"{path}: field 'header length': {header_bytes:,} bytes at byte {start}, "
                f"but the file holds {total - start:,} after it"
            )
        table = _data_table(handle.read(header_bytes), path)
        end = table if 0 < table <= total else total
        position, packets = start + header_bytes, 0
        while position < end:
            handle.seek(position)
            head = handle.read(8)
            if len(head) < 8:
                raise EventError(
                    f"{path}: cut at byte {position}, inside packet {packets}'s header"
                )
            size = struct.unpack("<I", head[4:])[0]
            if size > end - position - 8:
                raise EventError(
                    f"{path}: field 'packet {packets} size': {size:,} bytes at byte "
                    f"{position}, but {end - position - 8:,} remain before "
                    f"{'the data table' if end == table else 'the end of the file'}"
                )
            position += 8 + size
            packets += 1
    return packets


def _u32(data: bytes, path: Path, field: str, at: int) -> int:
    if len(data) < 4:
        raise EventError(f"{path}: cut at byte {at}, inside the {field}")
    return int(struct.unpack("<I", data)[0])


def _data_table(header: bytes, path: Path) -> int:
    """The IOHeader's dataTablePosition (a FlatBuffers table: compression, dataTablePosition,
    infoNode), -1 where the file has none."""
    try:
        root = struct.unpack_from("<I", header, 0)[0]
        vtable = root - struct.unpack_from("<i", header, root)[0]
        vtable_bytes = struct.unpack_from("<H", header, vtable)[0]
        if vtable_bytes < 8:  # no dataTablePosition field: the default
            return -1
        offset = struct.unpack_from("<H", header, vtable + 6)[0]
        return int(struct.unpack_from("<q", header, root + offset)[0]) if offset else -1
    except struct.error:
        raise EventError(f"{path}: field 'header': not an AEDAT4 IOHeader") from None


def read_aedat4(path: str | os.PathLike[str]) -> Events:
    """The first event stream of an AEDAT4 file (t in µs as stored, Unix time).

    Every declared size is checked against the file first (`check_layout`). The Rust
    decoder aborts the whole process on some damaged files (a panic that cannot
    unwind), and on others asks for tens of gigabytes from a file of a few kilobytes, so it
    runs in a child process limited to MEMORY_BASE + MEMORY_PER_BYTE × the file's size and
    to SECONDS_BASE + SECONDS_PER_MB per MB: a crash or a limit reached is an EventError.
    """
    try:
        import aedat  # noqa: F401 - fail here, with the install hint, not in the child
    except ImportError:
        raise EventError(f"{path}: reading AEDAT4 needs the 'aedat' package") from None
    import multiprocessing

    check_layout(path)
    size = Path(path).stat().st_size
    memory = MEMORY_BASE + MEMORY_PER_BYTE * size
    seconds = SECONDS_BASE + SECONDS_PER_MB * size / 1e6
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(str(path), sender, memory), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            raise EventError(f"{path}: the AEDAT4 decoder took over {seconds:.0f} s (damaged?)")
        outcome = receiver.recv()
    except EOFError:
        raise EventError(
            f"{path}: the AEDAT4 decoder crashed on this file, or needed more "
            f"than {memory / 2**30:.1f} GiB (damaged or not AEDAT4)"
        ) from None
    finally:
        child.kill()
        child.join()
        receiver.close()
    if isinstance(outcome, EventError):
        raise outcome
    array, width, height = outcome
    return Events(array, width, height).check(str(path))


def _child(path: str, sender: Any, memory: int) -> None:
    """The decoding process: limits its own memory, sends the events or the EventError."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        sender.send(_decode(path))
    except EventError as error:
        sender.send(error)


def _decode(path: str) -> tuple[np.ndarray, int, int]:
    """In the child process: the events array and sensor size of the first event stream."""
    import aedat

    try:
        decoder = aedat.Decoder(path)
        streams = {k: v for k, v in decoder.id_to_stream().items() if v["type"] == "events"}
    except BaseException as error:  # the Rust decoder's message says what is wrong
        raise _refused(path, "not a readable AEDAT4 file", error) from None
    if not streams:
        raise EventError(f"{path}: no event stream in this AEDAT4 file")
    stream = min(streams)
    width, height = streams[stream]["width"], streams[stream]["height"]
    try:
        chunks = [
            packet["events"]
            for packet in decoder
            if packet["stream_id"] == stream and "events" in packet
        ]
    except BaseException as error:  # a cut or damaged packet: the decoder says which
        raise _refused(path, "a damaged AEDAT4 file", error) from None
    array = np.empty(sum(len(c) for c in chunks), EVENT_DTYPE)
    if chunks:
        raw = np.concatenate(chunks)
        array["t"], array["x"], array["y"] = raw["t"], raw["x"], raw["y"]
        array["p"] = raw["on"]
    return array, width, height


def _refused(path: str | os.PathLike[str], what: str, error: BaseException) -> EventError:
    """The EventError for a decoder failure; Ctrl-C and the like are raised again. The Rust
    decoder panics on some damaged files (a BaseException, PanicException)."""
    if not isinstance(error, Exception) and type(error).__name__ != "PanicException":
        raise error
    return EventError(f"{path}: {what}: {str(error).splitlines()[0] if str(error) else error!r}")


def write_aedat4(events: Events, path: str | os.PathLike[str], camera: str = "substrates") -> None:
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
    for t, x, y, p in zip(
        a["t"].tolist(), a["x"].tolist(), a["y"].tolist(), a["p"].tolist(), strict=True
    ):
        store.push_back(t, x, y, bool(p))
    writer.writeEvents(store)
    del writer  # closes the file
    os.replace(temporary, path)
