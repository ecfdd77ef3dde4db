"""Read and write event files through FORMATS: Prophesee EVT 2.0 / 2.1 / 3.0 `.raw` (with
the `%` header) and `.dat` (here), iniVation `.aedat4` (aedat4.py) and `.aedat` 3.x
(aedat3.py), HDF5 (hdf5.py) and Parquet. Every problem is an EventError naming the file and
the byte offset; words that carry no CD event (triggers,
OTHERS, CONTINUED) are skipped and counted, never dropped silently."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..formats import Format, Formats
from . import dat, evt2, evt3, evt21
from .events import EventError, Events
from .prophesee_header import Header, check_sensor, legacy_layout, raw_encoding, read_header

WORD_BYTES = {"evt2": 4, "evt21": 8, "evt3": 2}
HEADER_SCAN = 1 << 20
"""Bytes searched for the `%` header (headers are a few hundred bytes)."""
CODECS = {"evt2": evt2, "evt21": evt21, "evt3": evt3}
MAX_VENDOR_SHARE = 0.5
"""Most of a file's words that may carry no CD event (triggers, OTHERS, CONTINUED): the
formats allow them, but a file made mostly of them is damaged or of another format."""
VENDOR_SHARE_FROM_WORDS = 10_000
"""The share is judged on files of at least this many words (a short file may be all
triggers)."""


@dataclass(frozen=True)
class FileInfo:
    """encoding: evt2, evt21, evt3 or dat; skipped: words without a CD event; sensor_from: where the
    sensor size came from (header; system_ID or plugin_name, a legacy header's camera looked
    up in OpenEB's tables; caller; or inferred from the largest x and y)."""

    encoding: str
    skipped: int
    sensor_from: str
    header: dict[str, str]


def read_events(
    path: str | os.PathLike[str], width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    """The CD events of any file in FORMATS, and how it was read. The sensor size comes
    from the file, else from `width`/`height`, else from the largest coordinates (said in
    FileInfo)."""
    return FORMATS.read(path, width=width, height=height)


def _read_words(
    path: Path, width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    """A .raw (EVT 2.0/2.1/3.0) or .dat file, decoded whole."""
    layout = open_layout(path)
    array, skipped, wide, high = layout.decode(layout.payload, 0, layout.start_state())
    layout.check_vendor_share(skipped)
    width, height, sensor_from = sensor_size(
        layout.header, width, height, wide, high, not len(array), path
    )
    events = Events(array, width, height)
    if wide > events.width or high > events.height:
        events.check(str(path))  # names the first event outside the sensor
    return events, FileInfo(layout.encoding, skipped, sensor_from, layout.header.fields)


def _read_aedat4(
    path: Path, width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    from .aedat4 import read_aedat4

    return read_aedat4(path), FileInfo("aedat4", 0, "header", {})


def _read_aedat3(
    path: Path, width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    from .aedat3 import read_aedat3

    events, info = read_aedat3(path, width, height)
    source = {"source": info.source or "", "version": info.version}
    return events, FileInfo("aedat3", info.skipped_events, info.sensor_from, source)


def _read_hdf5(
    path: Path, width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    from .hdf5 import read_hdf5

    return read_hdf5(path, width, height), FileInfo("hdf5", 0, "file", {})


def _read_parquet(
    path: Path, width: int | None = None, height: int | None = None
) -> tuple[Events, FileInfo]:
    from .events import read_parquet

    return read_parquet(path).check(str(path)), FileInfo("parquet", 0, "file", {})


def _write_aedat4(events: Events, path: Path) -> None:
    from .aedat4 import write_aedat4

    write_aedat4(events, path)


def _write_hdf5(events: Events, path: Path) -> None:
    from .hdf5 import write_hdf5

    write_hdf5(events, path)


def _write_parquet(events: Events, path: Path) -> None:
    from .events import write_parquet

    write_parquet(events, path)


def sensor_size(
    header: Header,
    width: int | None,
    height: int | None,
    wide: int,
    high: int,
    empty: bool,
    path: Path,
) -> tuple[int, int, str]:
    """(width, height, where they came from), the first of: the size the header declares
    (`header`); the caller's `width`/`height` (`caller`); the size a legacy header's camera
    implies (`system_ID`, `plugin_name`), unless events lie beyond it (expelliarmus heads
    its files with a Gen3 640 × 480 camera's header whatever the sensor); the events'
    largest coordinates + 1 (`wide`, `high`: `inferred`, saying why an implied size was
    set aside), checked."""
    implied = header.size_from in ("system_ID", "plugin_name")
    if header.width is not None and header.height is not None and not implied:
        return header.width, header.height, "header"
    if width is not None and height is not None:
        return int(width), int(height), "caller"
    doubt = ""
    if header.width is not None and header.height is not None:
        if wide <= header.width and high <= header.height:
            return header.width, header.height, str(header.size_from)
        doubt = (
            f" (events lie beyond the {header.width}×{header.height} its "
            f"{header.size_from} implies)"
        )
    if empty:
        raise EventError(
            f"{path}: no events and no sensor size in the header (give the width and height)"
        )
    check_sensor(int(wide), int(high), f"{path}: the events' coordinates")
    return int(wide), int(high), "inferred" + doubt


@dataclass(frozen=True)
class Layout:
    """Where a .raw or .dat file's words are and how to decode them: `payload` the
    memory-mapped words after the header (whole words, checked), `start` its first byte in
    the file, `word` bytes a word (a record for DAT)."""

    path: Path
    encoding: str
    header: Header
    start: int
    word: int
    payload: np.ndarray

    def check_vendor_share(self, skipped: int) -> None:
        """Refuse a file most of whose words carry no CD event (see MAX_VENDOR_SHARE)."""
        words = len(self.payload) // self.word
        if words >= VENDOR_SHARE_FROM_WORDS and skipped > MAX_VENDOR_SHARE * words:
            raise EventError(
                f"{self.path}: {skipped:,} of its {words:,} words carry no CD "
                f"event (more than {MAX_VENDOR_SHARE:.0%}): a damaged file, or "
                f"not {self.encoding.upper()}"
            )

    def start_state(self) -> np.ndarray:
        """The decoder's state before the first word."""
        codec = dat if self.encoding == "dat" else CODECS[self.encoding]
        return np.array(codec.START, np.int64)

    def decode(
        self, words: np.ndarray, offset: int, state: np.ndarray
    ) -> tuple[np.ndarray, int, int, int]:
        """(events, skipped words, largest x + 1, largest y + 1) of `words`, the payload's
        bytes from `offset` on (whole words), decoded from `state`, which is updated; every
        problem is an EventError naming the file's byte."""
        path, start, word = self.path, self.start + offset, self.word
        if self.encoding == "dat":
            array, back, bad, wide, high = dat.decode(words, state)
            skipped = 0
            if bad >= 0:
                raise EventError(
                    f"{path}: byte {start + bad * word}: polarity "
                    f"{int(array['p'][bad])}; DAT CD events have 0 or 1"
                )
        else:
            legacy = self.encoding == "evt21" and legacy_layout(self.header)
            array, back, skipped, wide, high, reserved = (
                evt21.decode(words, legacy, state)
                if self.encoding == "evt21"
                else CODECS[self.encoding].decode(words, state)
            )
            if reserved >= 0:
                kind = int(words[reserved * word + (3 if legacy else word - 1)]) >> 4
                raise EventError(
                    f"{path}: corrupt data at byte {start + reserved * word}: "
                    f"word type {kind:#x} is reserved in {self.encoding.upper()} "
                    "(a damaged or truncated-and-joined file)"
                )
        if back >= 0:
            raise EventError(f"{path}: timestamps go backwards at byte {start + back * word}")
        return array, skipped, int(wide), int(high)


def open_layout(path: str | os.PathLike[str]) -> Layout:
    """The header and word layout of a .raw (EVT 2.0/2.1/3.0) or .dat file."""
    path = Path(path)
    suffix = path.suffix.lower()
    data = _mapped(path)
    header = read_header(bytes(data[:HEADER_SCAN]), str(path))
    if suffix == ".dat":
        encoding, start = "dat", header.data_offset + 2
        marker = bytes(data[header.data_offset : start]) or b"\x00\x08"  # empty: no events
        if len(marker) < 2:
            raise EventError(
                f"{path}: cut at byte {header.data_offset}, inside the event type "
                "and size bytes after the header"
            )
        kind, size = marker
        if kind not in dat.CD_TYPES or size != dat.CD_SIZE:
            named = f" {dat.OTHER_TYPES[kind]}" if kind in dat.OTHER_TYPES else ""
            raise EventError(
                f"{path}: byte {header.data_offset}: event type {kind}{named}, size "
                f"{size}; DAT CD events are type 0 (Event2d) or 12 (EventCd), size 8"
            )
        word = dat.CD_SIZE
    elif suffix == ".raw":
        encoding, start = raw_encoding(header, str(path)), header.data_offset
        word = WORD_BYTES[encoding]
    else:
        raise EventError(f"{path}: not a .raw or .dat file")
    payload = data[start:]
    if len(payload) % word:
        raise EventError(
            f"{path}: cut word stream: {len(payload)} bytes from byte {start} are not whole "
            f"{word}-byte {'records' if encoding == 'dat' else 'words'}"
        )
    return Layout(path, encoding, header, start, word, payload)


def _mapped(path: Path) -> np.ndarray:
    """The file's bytes, memory-mapped (no copy; decoders read the page cache directly)."""
    if path.stat().st_size == 0:
        return np.zeros(0, np.uint8)
    return np.memmap(path, np.uint8, "r")


def write_events(events: Events, path: str | os.PathLike[str], encoding: str | None = None) -> None:
    """A file in any writable format of FORMATS, by its ending: .raw (EVT 2.0, 2.1 or 3.0:
    `encoding` evt2, evt21 or evt3; default evt3), .dat, .aedat4, .h5 or .parquet, giving
    the sensor size; written to a temporary name, then renamed."""
    fmt = FORMATS.of(path)
    options = {"encoding": encoding} if encoding is not None and fmt.name == "raw" else {}
    FORMATS.write(events, path, fmt.name, **options)


def _write_words(events: Events, path: Path, encoding: str | None = None) -> None:
    """A .raw or .dat file."""
    events.check(str(path))
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    size = f"width={events.width};height={events.height}"
    if path.suffix.lower() == ".dat":
        lines = [
            "% Data file containing CD events",
            "% Version 2",
            f"% Date {stamp}",
            f"% Width {events.width}",
            f"% Height {events.height}",
        ]
        body = dat.encode(events.array)
    elif path.suffix.lower() == ".raw":
        encoding = encoding or "evt3"
        if encoding not in CODECS:
            raise EventError(f"{path}: encoding {encoding!r}; .raw files hold evt2, evt21 or evt3")
        version = {"evt2": "2.0", "evt21": "2.1", "evt3": "3.0"}[encoding]
        lines = [
            f"% Date {stamp}",
            f"% evt {version}",
            f"% format {encoding.upper()};{size}",
            f"% geometry {events.width}x{events.height}",
            "% end",
        ]
        body = CODECS[encoding].encode(events.array)
    else:
        raise EventError(f"{path}: not a .raw or .dat file")
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(("\n".join(lines) + "\n").encode() + body)
    os.replace(temporary, path)


FORMATS: Formats[tuple[Events, FileInfo]] = Formats(
    "event file",
    [
        Format("raw", "Prophesee EVT 2.0/2.1/3.0", (".raw",), _read_words, _write_words),
        Format("dat", "Prophesee DAT", (".dat",), _read_words, _write_words),
        Format("aedat", "AEDAT 3.x", (".aedat",), _read_aedat3),
        Format("aedat4", "AEDAT 4", (".aedat4",), _read_aedat4, _write_aedat4),
        Format("hdf5", "HDF5, DSEC layout", (".h5", ".hdf5"), _read_hdf5, _write_hdf5),
        Format("parquet", "Parquet", (".parquet",), _read_parquet, _write_parquet),
    ],
    error=EventError,
)
"""The event-file formats: readers take (path, width=None, height=None) and give (Events,
FileInfo); writers take (Events, path, **options). .raw and .dat can also be
streamed window by window (stream.EventStream)."""
