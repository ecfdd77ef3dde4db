"""Spike sorting for recordings that hold several cells, through SpikeInterface's own
sorters (tridesclous2, spykingcircus2: pure Python, needing hdbscan beside SpikeInterface;
the [mea] extra installs both), and sorting scored against a simulator's truth with
SpikeInterface's ground-truth comparison.

Only the quiet recording is sorted (models/hh/quiet.py: before the first pulse and
between pulses, joined end to end): every pulse leaves an artefact and evoked spikes
locked to it, which sorters are not built for; each unit's evoked spikes are then found by
its own matched filter (models/hh/detection.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ...datasets.mea.recording import Recording
from ...errors import SubstratesError
from ...models.hh.quiet import locate
from .mea_merging import nearest

SORTERS = ("tridesclous2", "spykingcircus2")
"""SpikeInterface's internal sorters hh-fit can run (both need `hdbscan`)."""


class SortingError(SubstratesError, ValueError):
    """A sorter is missing or failed; the message says which and why."""


JOIN_MS = 2.0
"""Spikes a sorter places this close to where two quiet spans were joined are dropped (ms):
the join is a step in the traces, not a spike."""


def sort_spontaneous(
    detection: Recording, sorter: str, spans: np.ndarray
) -> tuple[list[np.ndarray], int]:
    """Each unit's spike samples (sorted) in the quiet `spans` ((k, 2) samples [start, end))
    of `detection` (the traces after preprocessing, float µV), joined end to end and
    spikes within JOIN_MS of a join dropped, by SpikeInterface's `sorter` with its default
    parameters, less redundant units (SpikeInterface's `remove_redundant_units`, then
    `_without_copies`: of two units whose spikes fall within 1 ms of each other's for half
    of the smaller's, the smaller is dropped; two cells firing at 10 Hz coincide that
    often by chance on about 2% of spikes), and how many were dropped. The traces are
    written once to a temporary binary folder (sorters reload their input from disk) and
    removed afterwards."""
    import spikeinterface as si
    import spikeinterface.sorters as ss
    from spikeinterface.curation import remove_redundant_units

    from .mea import lazy_spikeinterface

    if sorter not in SORTERS:
        raise SortingError(f"unknown sorter {sorter!r}: {', '.join(SORTERS)}")
    if not ss.sorter_dict[sorter].is_installed():
        raise SortingError(f"{sorter} needs hdbscan: pip install 'substrates[mea]'")
    with tempfile.TemporaryDirectory(prefix="substrates-sort-") as scratch:
        whole = lazy_spikeinterface(detection)
        pieces = [whole.frame_slice(int(a), int(b)) for a, b in spans]
        source = pieces[0] if len(pieces) == 1 else si.concatenate_recordings(pieces)
        saved = source.save(
            folder=Path(scratch) / "traces", format="binary", verbose=False, progress_bar=False
        )
        try:
            sorting = ss.run_sorter(
                sorter,
                saved,
                folder=Path(scratch) / "sorter",
                remove_existing_folder=True,
                verbose=False,
            )
        except Exception as error:  # a sorter's own failure, whatever its type
            raise SortingError(f"{sorter} failed: {str(error).splitlines()[-1]}") from None
        kept = remove_redundant_units(
            sorting,
            align=False,
            delta_time=1.0,
            duplicate_threshold=0.5,
            remove_strategy="max_spikes",
        )
        join = round(JOIN_MS * 1e-3 * detection.sampling_hz)
        units = [
            _in_recording(np.asarray(kept.get_unit_spike_train(u), np.int64), spans, join)
            for u in kept.get_unit_ids()
        ]
        units = _without_copies(units, round(1e-3 * sorting.get_sampling_frequency()))
        return units, len(sorting.get_unit_ids()) - len(units)


def _in_recording(spikes: np.ndarray, spans: np.ndarray, join: int) -> np.ndarray:
    """Spike samples of the quiet spans joined end to end as samples of the recording
    (sorted), less those within `join` samples of a join."""
    lengths = spans[:, 1] - spans[:, 0]
    span, offset = locate(lengths, spikes[spikes < lengths.sum()])
    after_join = (offset < join) & (span > 0)
    before_join = (lengths[span] - offset <= join) & (span < len(spans) - 1)
    return np.sort((spans[span, 0] + offset)[~(after_join | before_join)])


def _without_copies(units: list[np.ndarray], window: int) -> list[np.ndarray]:
    """`units` less each one whose spikes fall within `window` samples of a larger unit's
    for at least half of its own (SpikeInterface's agreement divides by both units'
    spikes, so a small copy inside a large unit, as spykingcircus2 sometimes makes shifted
    by 0.25 ms, passes it); the order of the rest is kept."""
    by_size = sorted(range(len(units)), key=lambda k: -len(units[k]))
    kept: list[int] = []
    for k in by_size:
        train = units[k]
        if not any(_share(train, units[j], window) >= 0.5 for j in kept):
            kept.append(k)
    return [units[k] for k in sorted(kept)]


def _share(train: np.ndarray, other: np.ndarray, window: int) -> float:
    """The fraction of `train`'s spikes within `window` samples of one of `other`'s (both
    sorted)."""
    return float((nearest(other, train) <= window).mean()) if len(train) else 0.0


def score_sorting(
    units: list[np.ndarray], truths: list[np.ndarray], sampling_hz: float, delta_ms: float = 0.4
) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """SpikeInterface's ground-truth comparison of sorted `units` against the true
    cells' spike samples `truths` (each near the trough, as sorters report them), spikes
    matching within delta_ms: per true cell its matched unit (−1: none), accuracy,
    recall and precision; and unit → true cell for every matched unit."""
    from spikeinterface.comparison import compare_sorter_to_ground_truth
    from spikeinterface.core import NumpySorting

    def numpy_sorting(trains: list[np.ndarray]) -> Any:
        return NumpySorting.from_unit_dict([{k: t for k, t in enumerate(trains)}], sampling_hz)

    comparison = compare_sorter_to_ground_truth(
        numpy_sorting(truths), numpy_sorting(units), delta_time=delta_ms, exhaustive_gt=True
    )
    performance = comparison.get_performance()
    match = comparison.hungarian_match_12
    scores, matched = [], {}
    for cell in range(len(truths)):
        unit = int(match[cell]) if cell in match.index else -1
        if unit >= 0:
            matched[unit] = cell
        row = performance.loc[cell]
        scores.append(
            {
                "cell": cell,
                "unit": unit,
                "spikes": len(truths[cell]),
                "accuracy": float(row["accuracy"]),
                "recall": float(row["recall"]),
                "precision": float(row["precision"]),
            }
        )
    return scores, matched
