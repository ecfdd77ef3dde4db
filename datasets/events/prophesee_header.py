"""The ASCII header of Prophesee .raw and .dat files: lines `% key value` before the data."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .events import EventError

MAX_SENSOR_SIDE = 8192
"""Widest or tallest sensor a header may declare (pixels); event sensors today are at most
1280 × 960, and every image of a sensor this size is allocated whole downstream."""


@dataclass(frozen=True)
class Header:
    """The header's `key value` pairs, where the data starts (bytes), and the sensor size
    (None when the header does not give it)."""

    fields: dict[str, str]
    data_offset: int
    width: int | None
    height: int | None


MAX_LINE = 4096
"""Longest header line (bytes); Prophesee's are under a hundred."""
_CONTROL = bytes(b for b in range(32) if b not in b"\t\r")


def read_header(data: bytes, source: str) -> Header:
    """Parse the `%` lines at the start of `data` (a .raw or .dat file's bytes). The header
    ends at `% end`, or at the first line that does not start with `%`, or at a `%` that
    starts no line of text (no end of line within MAX_LINE bytes, or control bytes before
    it): event data may begin with the byte `%` (expelliarmus writes files without
    `% end`), and such a byte is data, not header."""
    fields: dict[str, str] = {}
    offset = 0
    while offset < len(data) and data[offset : offset + 1] == b"%":
        end = data.find(b"\n", offset, offset + MAX_LINE)
        if end < 0 or any(b in _CONTROL for b in data[offset:end]):
            break  # a data byte '%', not a header line
        line = data[offset + 1 : end].decode("latin-1").strip()
        offset = end + 1
        if line == "end":
            break
        key, _, value = line.partition(" ")
        fields[key] = value.strip()
    width, height = _geometry(fields, source)
    return Header(fields, offset, width, height)


def _geometry(fields: dict[str, str], source: str) -> tuple[int | None, int | None]:
    """Sensor size from `format EVT3;width=1280;height=720`, `geometry 1280x720` or DAT's
    `Width` / `Height` lines; a size that is not two whole numbers from 1 to
    MAX_SENSOR_SIDE is refused, naming the field."""
    declared = dict(re.findall(r"(width|height)=([^;\s]*)", fields.get("format", "")))
    if declared:
        pair, field = (declared.get("width"), declared.get("height")), "format"
    elif "geometry" in fields:
        w, _, h = fields["geometry"].partition("x")
        pair, field = (w, h), "geometry"
    elif "Width" in fields or "Height" in fields:
        pair, field = (fields.get("Width"), fields.get("Height")), "Width/Height"
    else:
        return None, None
    try:
        width, height = (int(str(v).strip()) for v in pair)
    except ValueError:
        raise EventError(f"{source}: header field {field!r}: sensor size {pair[0]}×{pair[1]} "
                         "is not two whole numbers") from None  # fmt: skip
    check_sensor(width, height, f"{source}: header field {field!r}")
    return width, height


def check_sensor(width: int, height: int, where: str) -> None:
    """Refuse a sensor size outside 1 … MAX_SENSOR_SIDE pixels per side."""
    if not (1 <= width <= MAX_SENSOR_SIDE and 1 <= height <= MAX_SENSOR_SIDE):
        raise EventError(f"{where}: sensor {width}×{height}; each side must be 1 to "
                         f"{MAX_SENSOR_SIDE} pixels")  # fmt: skip


def raw_encoding(header: Header, source: str) -> str:
    """'evt2', 'evt21' or 'evt3', from the `format` field's name (`EVT2`, `EVT21`, `EVT3`,
    before the first `;`), else from `evt 2.0` / `evt 2.1` / `evt 3.0`."""
    name = header.fields.get("format", "").split(";")[0].strip().upper()
    version = header.fields.get("evt", "").strip()
    by_name = {"EVT2": "evt2", "EVT21": "evt21", "EVT3": "evt3"}
    by_version = {"2.0": "evt2", "2.1": "evt21", "3.0": "evt3"}
    if name in by_name:
        return by_name[name]
    if version in by_version:
        return by_version[version]
    raise EventError(f"{source}: the header names no EVT 2.0, 2.1 or 3.0 encoding "
                     f"(format {name or 'none'!r}, evt {version or 'none'!r})")  # fmt: skip


def legacy_layout(header: Header) -> bool:
    """Whether an EVT 2.1 stream has the IMX636's swapped 32-bit halves
    (`format EVT21;…;endianness=legacy`)."""
    return "endianness=legacy" in header.fields.get("format", "").replace(" ", "")
