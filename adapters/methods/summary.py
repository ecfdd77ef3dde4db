"""A run's summary as a person reads it: each figure declared once with a label, a unit and a
format, and that declaration used three times — the lines a run prints, summary.json in the
run folder, and the methods' reference page.

    >>> entry = Entry("mean_psnr_removed_db", "mean PSNR of the recovered transmission", "dB")
    >>> entry.line("mean_psnr_removed_db", 24.3217)
    'mean PSNR of the recovered transmission: 24.3 dB'
    >>> Entry("seconds_per_step.{method}", "seconds per map ({method})", "s").line(
    ...     "seconds_per_step.idw", 0.0123)
    'seconds per map (idw): 0.0123 s'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Entry:
    """One figure of a summary.

    key: its key in the run's summary (nested keys dotted); a `{name}` part matches any
    text and may be used in the label ('mean_held_out_accuracy_{candidate}'). label: what
    it is, in words; unit: its unit ('' for counts and fractions; '%' shows a fraction as
    a percentage); format: a format spec for numbers ('.3g' by default; 'd' for counts).
    """

    key: str
    label: str
    unit: str = ""
    format: str = ".3g"

    def match(self, key: str) -> dict[str, str] | None:
        """The `{name}` parts of `key` if this entry declares it, else None."""
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(self.key))
        found = re.fullmatch(pattern, key)
        return None if found is None else found.groupdict()

    def text(self, value: Any) -> str:
        """`value` in this entry's format and unit ('24.3 dB', '83.3 %', '12')."""
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            return str(value)
        if self.unit == "%":
            return f"{100 * float(value):.1f} %"
        number = f"{value:{self.format}}" if np.isfinite(value) else "n/a"
        return f"{number} {self.unit}" if self.unit else number

    def line(self, key: str, value: Any) -> str:
        """One line: the label (its `{name}` parts filled from `key`), then the value."""
        return f"{self.label.format(**(self.match(key) or {}))}: {self.text(value)}"


def flat(summary: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted keys; lists and scalars as they are."""
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def labelled(summary: dict[str, Any], entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """summary.json: each figure of `summary` with its label, unit and the text a person
    reads; a figure no entry declares keeps its key as its label."""
    rows = []
    for key, value in flat(summary).items():
        entry = next((e for e in entries if e.match(key) is not None), None)
        if entry is None:
            rows.append({"key": key, "label": key, "unit": "", "value": value, "text": str(value)})
            continue
        label = entry.label.format(**(entry.match(key) or {}))
        rows.append(
            {
                "key": key,
                "label": label,
                "unit": entry.unit,
                "value": value,
                "text": entry.text(value),
            }
        )
    return rows


def undeclared(summary: dict[str, Any], entries: Sequence[Entry]) -> list[str]:
    """The keys of `summary` that no entry declares."""
    return [k for k in flat(summary) if not any(e.match(k) is not None for e in entries)]
