"""Electrical stimulation from a BIDS-style `events.tsv` sidecar, beside any recording.

Columns (tab-separated, a header row, `n/a` for missing values, as BIDS writes them):
- `onset` (s, from the start of the recording) and `duration` (s), required;
- `electrical_stimulation_site`: the stimulated electrode, or a bipolar pair `E1-E2`
  (the first site gets the current, the second the opposite current), required; a site is
  an electrode id (`12`) or a name ending in it (`E12`, `el_12`). Beyond BIDS, `E1+E2`
  drives both with the same current, and longer patterns join sites with `+` and `-`
  (`E1+E2-E3`);
- `electrical_stimulation_current`: amplitude in A (SI, as BIDS asks; read as µA), required;
- `electrical_stimulation_waveform` (or `..._type`): the pulse shape, `biphasic` or
  `triphasic` (default: `biphasic`).
A pulse given only as `electrical_stimulation_voltage` (voltage-mode stimulation, as
MaxWell's stimulation units give by default) is refused by name: the model takes current.
Rows without a stimulation site (other events) are skipped and counted.

With `onsets_s` (the pulse times found in the recording: a TTL line or a neo event channel,
see triggers.py) the table is a protocol: no `onset` or `duration` column, one row a
pulse in the order they were given, and as many rows as pulses.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "events.tsv"
    >>> _ = path.write_text("onset\\tduration\\telectrical_stimulation_site\\t"
    ...     "electrical_stimulation_current\\n0.5\\t0.0002\\tE3-E4\\t-2e-6\\n")
    >>> stim = read_events_tsv(path, electrode_ids=[1, 2, 3, 4]).stimulation
    >>> stim.electrodes, stim.current_ua.tolist(), stim.weights
    (((3, 4),), [-2.0], ((1.0, -1.0),))
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .recording import RecordingError, Stimulation

REQUIRED = ("onset", "duration", "electrical_stimulation_site", "electrical_stimulation_current")
SHAPES = ("biphasic", "triphasic")
_SITE = re.compile(r"^\s*[A-Za-z_]*?(\d+)\s*$")
_MISSING = {"", "n/a", "N/A", "nan"}
VOLTAGE = "electrical_stimulation_voltage"
VOLTAGE_MODE = (
    "voltage-mode stimulation (electrical_stimulation_voltage); the cell model is driven "
    "by current: stimulate in current mode, or give electrical_stimulation_current (A)"
)
MAX_BYTES = 256 * 1024**2
"""Largest sidecar read (a table of events, not a recording)."""


@dataclass(frozen=True)
class SidecarStimulation:
    """The stimulation read from a sidecar and the rows that were not stimulation."""

    stimulation: Stimulation
    skipped_rows: int


def read_events_tsv(
    path: str | os.PathLike[str], electrode_ids: Iterable[int], onsets_s: np.ndarray | None = None
) -> SidecarStimulation:
    """Stimulation events of a BIDS `events.tsv` for a recording with these electrode ids
    (or, with `onsets_s`, of a protocol table whose rows are the pulses at those times).

    Raises RecordingError naming the file, the row and the field for anything else: a
    missing column, a site that is not an electrode of the recording, a current that is
    not a number, an unknown waveform.
    """
    path = Path(path)
    if not path.is_file():
        raise RecordingError(f"{path}: no such events file")
    if path.stat().st_size > MAX_BYTES:
        raise RecordingError(
            f"{path}: {path.stat().st_size:,} bytes; an events file is at most {MAX_BYTES:,}"
        )
    ids = set(int(i) for i in electrode_ids)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
    except (UnicodeDecodeError, csv.Error) as error:
        raise RecordingError(f"{path}: not a tab-separated text file ({error})") from None
    header = set(rows[0]) if rows else set()
    protocol = onsets_s is not None
    needed = REQUIRED[2:] if protocol else REQUIRED
    missing = [c for c in needed if c not in header]
    if "electrical_stimulation_current" in missing and VOLTAGE in header:
        raise RecordingError(f"{path}: {VOLTAGE_MODE}")
    if missing:
        raise RecordingError(
            f"{path}: no column {', '.join(missing)} (BIDS events.tsv with "
            "electrical stimulation columns)"
        )
    if protocol and "onset" in header:
        raise RecordingError(
            f"{path}: has an 'onset' column, but the pulse times come "
            "from the recording: give a protocol without onsets, or no "
            "times"
        )
    times, electrodes, currents, shapes, weights = [], [], [], [], []
    skipped = 0
    for number, row in enumerate(rows, start=2):  # row 1 is the header
        site = (row.get("electrical_stimulation_site") or "").strip()
        if site in _MISSING:
            skipped += 1
            continue
        where = f"{path}: row {number}"
        onset = 0.0 if protocol else _number(row.get("onset"), f"{where}, field 'onset'")
        voltage = (row.get(VOLTAGE) or "").strip()
        if voltage not in _MISSING and _blank(row.get("electrical_stimulation_current")):
            raise RecordingError(f"{where}: {voltage} V at {site}: {VOLTAGE_MODE}")
        current = _number(
            row.get("electrical_stimulation_current"),
            f"{where}, field 'electrical_stimulation_current'",
        )
        if onset < 0:
            raise RecordingError(f"{where}, field 'onset': {onset} s is before the recording")
        pattern, signs = _pattern(site, ids, where)
        waveform = row.get("electrical_stimulation_waveform") or row.get(
            "electrical_stimulation_type"
        )
        shape = (waveform or "biphasic").strip().lower()
        if shape in _MISSING:
            shape = "biphasic"
        if shape not in SHAPES:
            raise RecordingError(
                f"{where}, field 'electrical_stimulation_waveform': {shape!r}; "
                f"allowed: {', '.join(SHAPES)}"
            )
        times.append(onset)
        electrodes.append(pattern)
        currents.append(current * 1e6)  # A -> µA
        shapes.append(shape)
        weights.append(signs)
    if not times:
        raise RecordingError(f"{path}: no row names a stimulation site")
    if onsets_s is not None:
        if len(onsets_s) != len(times):
            raise RecordingError(
                f"{path}: {len(times)} stimulation rows, but the recording "
                f"marks {len(onsets_s)} pulses"
            )
        times = [float(t) for t in np.sort(onsets_s)]
    order = np.argsort(times, kind="stable")
    stimulation = Stimulation(
        np.asarray(times, float)[order],
        tuple(electrodes[k] for k in order),
        np.asarray(currents, float)[order],
        tuple(shapes[k] for k in order),
        tuple(weights[k] for k in order),
    )
    return SidecarStimulation(stimulation, skipped)


def _number(text: str | None, where: str) -> float:
    try:
        value = float((text or "").strip())
    except ValueError:
        raise RecordingError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise RecordingError(f"{where}: {text!r} is not a finite number")
    return value


def _pattern(site: str, ids: set[int], where: str) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Electrodes and signed weights of 'E1', 'E1-E2', 'E1+E2', 'E1+E2-E3', …"""
    parts = re.split(r"([+-])", site)
    electrodes = [_site(parts[0], ids, where)]
    signs = [1.0]
    for joiner, part in zip(parts[1::2], parts[2::2], strict=True):
        electrodes.append(_site(part, ids, where))
        signs.append(1.0 if joiner == "+" else -1.0)
    if len(set(electrodes)) != len(electrodes):
        raise RecordingError(
            f"{where}, field 'electrical_stimulation_site': {site!r} names an electrode twice"
        )
    return tuple(electrodes), tuple(signs)


def _site(part: str, ids: set[int], where: str) -> int:
    match = _SITE.match(part)
    if match is None or int(match.group(1)) not in ids:
        raise RecordingError(
            f"{where}, field 'electrical_stimulation_site': {part!r} is not an electrode "
            f"of the recording (ids {min(ids)}…{max(ids)})"
        )
    return int(match.group(1))


def _blank(value: str | None) -> bool:
    """Whether a cell is empty or n/a."""
    return (value or "").strip() in _MISSING
