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
    """The header's `key value` pairs, where the data starts (bytes), the sensor size (None
    when the header does not give it) and which field gave it (`format`, `geometry`,
    `Width/Height`, or `system_ID` / `plugin_name` looked up in OpenEB's tables)."""

    fields: dict[str, str]
    data_offset: int
    width: int | None
    height: int | None
    size_from: str | None = None


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
    width, height, size_from = _geometry(fields, source)
    return Header(fields, offset, width, height, size_from)


def _geometry(fields: dict[str, str], source: str) -> tuple[int | None, int | None, str | None]:
    """Sensor size and the field it came from: `format EVT3;width=1280;height=720`,
    `geometry 1280x720` (both given: they must agree, as OpenEB requires) or DAT's `Width` /
    `Height` lines; without them, as OpenEB reads legacy headers, from the camera's
    `system_ID` (when the integrator is Prophesee) or its `plugin_name`. A size that is not
    two whole numbers from 1 to MAX_SENSOR_SIDE is refused, naming the field."""
    declared = _format_options(fields)
    sizes = []
    if "width" in declared or "height" in declared:
        sizes.append(
            (_size((declared.get("width"), declared.get("height")), "format", source), "format")
        )
    if "geometry" in fields:
        w, _, h = fields["geometry"].partition("x")
        sizes.append((_size((w, h), "geometry", source), "geometry"))
    if not sizes and ("Width" in fields or "Height" in fields):
        pair = (fields.get("Width"), fields.get("Height"))
        sizes.append((_size(pair, "Width/Height", source), "Width/Height"))
    if len(sizes) == 2 and sizes[0][0] != sizes[1][0]:
        (fw, fh), (gw, gh) = sizes[0][0], sizes[1][0]
        raise EventError(
            f"{source}: the header's format says {fw}×{fh} and its geometry "
            f"{gw}×{gh}; a file has one sensor"
        )
    if sizes:
        (width, height), field = sizes[0]
        return width, height, field
    known = _legacy_size(fields, source)
    return known if known is not None else (None, None, None)


def _format_options(fields: dict[str, str]) -> dict[str, str]:
    """The `key=value` options of the `format` line (`EVT3;width=1280;height=720`)."""
    return dict(re.findall(r"(\w+)=([^;\s]*)", fields.get("format", "")))


def _size(pair: tuple[str | None, str | None], field: str, source: str) -> tuple[int, int]:
    try:
        width, height = (int(str(v).strip()) for v in pair)
    except ValueError:
        raise EventError(
            f"{source}: header field {field!r}: sensor size {pair[0]}×{pair[1]} "
            "is not two whole numbers"
        ) from None
    check_sensor(width, height, f"{source}: header field {field!r}")
    return width, height


VGA, HD = (640, 480), (1280, 720)
SYSTEM_SIZES = {
    0x15: VGA,
    0x1C: VGA,
    0x1A: HD,
    0x17: VGA,
    0x97: VGA,
    0x19: VGA,
    0x99: VGA,
    0x1D: VGA,
    0x23: VGA,
    0x1E: HD,
    0x2E: HD,
    0x21: VGA,
    0xA1: VGA,
    0x22: VGA,
    0xA2: VGA,
    0x29: VGA,
    0x1F: HD,
    0x27: HD,
    0x28: VGA,
    0x30: HD,
    0x32: HD,
    0x31: HD,
}
"""Sensor size by Prophesee system ID, for headers without a geometry: OpenEB's table for
legacy RAW headers (`system_id_map` in the PSEE RAW file header; IDs from
`device_system_id.h`: Gen3/Gen3.1 boards 640 × 480, Gen4/Gen4.1/IMX636 boards 1280 × 720)."""
PLUGIN_SIZES = {
    "hal_plugin_gen3_fx3": VGA,
    "hal_plugin_gen31_fx3": VGA,
    "hal_plugin_gen31_evk2": VGA,
    "hal_plugin_gen31_evk3": VGA,
    "hal_plugin_gen4_fx3": HD,
    "hal_plugin_gen4_evk2": HD,
    "hal_plugin_gen41_evk2": HD,
    "hal_plugin_gen41_evk3": HD,
}
"""Sensor size by HAL plugin name: OpenEB's `plugins_map` (raw_constants.h)."""
SAPHIR_SYSTEM_ID = 0x37
"""OpenEB: Prophesee systems with a lower ID wrote EVT 2.1 with swapped 32-bit halves when
the header says nothing of endianness."""


def system_id(fields: dict[str, str]) -> int | None:
    """The header's `system_ID` when the plugin's and camera's integrator are Prophesee
    (OpenEB interprets no other vendor's IDs), else None."""
    legacy = fields.get("integrator_name", "")
    integrators = (
        fields.get("plugin_integrator_name", legacy),
        fields.get("camera_integrator_name", legacy),
    )
    if any(name.strip() != "Prophesee" for name in integrators):
        return None
    try:
        return int(fields.get("system_ID", "").strip(), 0)
    except ValueError:
        return None


def _legacy_size(fields: dict[str, str], source: str) -> tuple[int, int, str] | None:
    """The sensor size a legacy header implies by its system ID or plugin name; when both
    name a known sensor they must agree."""
    by_id = SYSTEM_SIZES.get(system_id(fields) or -1)
    plugin = fields.get("plugin_name", "").strip()
    by_plugin = PLUGIN_SIZES.get(plugin)
    if by_id and by_plugin and by_id != by_plugin:
        raise EventError(
            f"{source}: the header's system_ID {fields['system_ID']} is a "
            f"{by_id[0]}×{by_id[1]} camera and its plugin {plugin} a "
            f"{by_plugin[0]}×{by_plugin[1]} one"
        )
    if by_id:
        return by_id[0], by_id[1], "system_ID"
    if by_plugin:
        return by_plugin[0], by_plugin[1], "plugin_name"
    return None


def check_sensor(width: int, height: int, where: str) -> None:
    """Refuse a sensor size outside 1 … MAX_SENSOR_SIDE pixels per side."""
    if not (1 <= width <= MAX_SENSOR_SIDE and 1 <= height <= MAX_SENSOR_SIDE):
        raise EventError(
            f"{where}: sensor {width}×{height}; each side must be 1 to {MAX_SENSOR_SIDE} pixels"
        )


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
    raise EventError(
        f"{source}: the header names no EVT 2.0, 2.1 or 3.0 encoding "
        f"(format {name or 'none'!r}, evt {version or 'none'!r})"
    )


def legacy_layout(header: Header) -> bool:
    """Whether an EVT 2.1 stream has the IMX636's swapped 32-bit halves: the format's
    `endianness=` says so, else an `endianness` line, else (OpenEB's rule for headers that
    say neither) the camera is a Prophesee system older than the Saphir board."""
    fields = header.fields
    said = _format_options(fields).get("endianness", fields.get("endianness", "")).strip()
    if said:
        return said == "legacy"
    system = system_id(fields)
    return system is not None and 0 < system < SAPHIR_SYSTEM_ID
