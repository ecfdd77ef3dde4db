"""The ASCII header of Prophesee .raw and .dat files: lines `% key value` before the data."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .events import EventError


@dataclass(frozen=True)
class Header:
    """The header's `key value` pairs, where the data starts (bytes), and the sensor size
    (None when the header does not give it)."""

    fields: dict[str, str]
    data_offset: int
    width: int | None
    height: int | None


def read_header(data: bytes, source: str) -> Header:
    """Parse the `%` lines at the start of `data` (a .raw or .dat file's bytes)."""
    fields: dict[str, str] = {}
    offset = 0
    while offset < len(data) and data[offset : offset + 1] == b"%":
        end = data.find(b"\n", offset)
        if end < 0:
            raise EventError(f"{source}: header line at byte {offset} has no end of line")
        line = data[offset + 1 : end].decode("latin-1").strip()
        offset = end + 1
        if line == "end":
            break
        key, _, value = line.partition(" ")
        fields[key] = value.strip()
    width, height = _geometry(fields)
    return Header(fields, offset, width, height)


def _geometry(fields: dict[str, str]) -> tuple[int | None, int | None]:
    """Sensor size from `format EVT3;width=1280;height=720`, `geometry 1280x720` or DAT's
    `Width` / `Height` lines."""
    found = dict(re.findall(r"(width|height)=(\d+)", fields.get("format", "")))
    if found:
        return int(found["width"]), int(found["height"])
    if match := re.fullmatch(r"(\d+)x(\d+)", fields.get("geometry", "")):
        return int(match[1]), int(match[2])
    if "Width" in fields and "Height" in fields:
        return int(fields["Width"]), int(fields["Height"])
    return None, None


def raw_encoding(header: Header, source: str) -> str:
    """'evt2' or 'evt3', from `evt 2.0` / `evt 3.0` or `format EVT2` / `format EVT3`."""
    text = (header.fields.get("evt", "") + " " + header.fields.get("format", "")).upper()
    if "3.0" in text or "EVT3" in text:
        return "evt3"
    if "2.0" in text or "EVT2" in text:
        return "evt2"
    raise EventError(f"{source}: the header names no EVT 2.0 or 3.0 encoding "
                     f"(fields: {', '.join(header.fields) or 'none'})")  # fmt: skip
