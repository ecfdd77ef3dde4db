"""What the MEA study scripts share: hh-fit run on a simulated session written from
`mea.jaxley` options, its held-out patterns pooled with a Wilson interval."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

import substrates


@dataclass(frozen=True)
class Fitted:
    """An hh-fit run's summary, results rows, pooled held-out outcomes (bool per pattern)
    with their Wilson 95% interval, its wall time (minutes), and why each refused session
    was refused."""

    summary: dict[str, Any]
    rows: list[dict[str, Any]]
    held: list[bool]
    interval: tuple[float, float]
    minutes: float
    refused: list[str]

    def accuracy_cell(self) -> str:
        """'96.4% (93.9–97.9, 360 patterns)'."""
        low, high = self.interval
        return (
            f"{100 * np.mean(self.held):.1f}% ({100 * low:.1f}–{100 * high:.1f}, "
            f"{len(self.held)} patterns)"
        )


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion right/total."""
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * np.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def fit_simulated(options: str, scratch: Path, **parameters: Any) -> Fitted:
    """hh-fit (with `parameters`: cells, seed, simulations, …) on `mea.jaxley` sessions
    with `options` (YAML flow-mapping body), in `scratch`. When hh-fit refuses every
    session, the Fitted has an empty summary and the refusal as its one reason."""
    config = scratch / "session.yaml"
    config.write_text(f"substrate: mea\nbackend: mea.jaxley\noptions: {{{options}}}\n")
    began = time.perf_counter()
    try:
        run = substrates.run(
            "hh-fit", hardware=str(config), out=scratch / "runs", progress=False, **parameters
        )
    except substrates.SubstratesError as error:  # every session refused: nothing fitted
        minutes = (time.perf_counter() - began) / 60
        return Fitted({}, [], [], (float("nan"), float("nan")), minutes, [str(error)])
    minutes = (time.perf_counter() - began) / 60
    rows = pq.read_table(run.path / "results.parquet").to_pylist()
    held = [bool(r["correct"]) for r in rows if r.get("set") == "held-out"]
    record = json.loads((run.path / "provenance.json").read_text())
    refused = record.get("sessions_refused", [])
    return Fitted(run.summary, rows, held, wilson(sum(held), len(held)), minutes, refused)


def fit_conditions(
    conditions: dict[str, tuple[str, dict[str, Any]]], columns: list[str], **common: Any
) -> Iterator[tuple[str, Fitted]]:
    """Print a markdown table's header (`columns`), then fit each condition (name →
    simulator options, its own hh-fit parameters) with the `common` parameters, yielding
    its name and run for the row."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    with tempfile.TemporaryDirectory() as scratch:
        for name, (options, own) in conditions.items():
            yield name, fit_simulated(options, Path(scratch), **common, **own)
