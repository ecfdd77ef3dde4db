"""hh-fit on a recording of several cells: the quiet recording (before and between
pulses, or a separate spontaneous recording) is spike-sorted
(adapters/conversions/mea_sorting.py), fragments of one cell are merged into one unit
(adapters/conversions/mea_merging.py), each unit with enough spikes is observed from its
own spikes (image, evoked responses through its own matched filter), and those whose
stimulation can constrain a fit (models/hh/fit.py's observe) are fitted. On a simulated
session the sorting is scored against every true cell and each fitted unit is paired with
the cell it matched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...backends.mea.base import CellModel, GroundTruth
from ...datasets.mea.recording import Recording
from ...errors import SubstratesError
from ...models.hh.artefacts import ArtefactHandling
from ...models.hh.fit import MIN_SPIKES, Observed, observe
from ...models.hh.quiet import quiet_spans
from .forked import forked_map


@dataclass(frozen=True)
class Unit:
    """A sorted unit to fit: its index in the sorter's output, what the recording shows
    of it, and the true cell it matched (None: not simulated, or matched none)."""

    index: int
    observed: Observed
    cell: int | None


def true_troughs(model: CellModel, truth: GroundTruth, sampling_hz: float) -> list[np.ndarray]:
    """Each true cell's spontaneous spikes as samples of its trough on its deepest channel
    (where sorters place spikes): pulse sample plus the template's trough."""
    cells = truth.cells
    thetas = np.array([[c.parameters[p.name] for p in model.parameters] for c in cells])
    templates = model.templates(thetas)
    onset_s = model.onset_ms * 1e-3
    return [
        np.round((c.spike_times_s - onset_s) * sampling_hz).astype(np.int64)
        + int(template.min(axis=0).argmin())
        for c, template in zip(cells, templates, strict=True)
    ]


def sorted_units(
    recording: Recording,
    detection: Recording,
    model: CellModel,
    seed: int,
    sorter: str,
    artefacts: ArtefactHandling,
    truths: list[np.ndarray] | None,
    label: str,
    spontaneous: tuple[Recording, Recording] | None = None,
    fitting_within_um: float | None = None,
) -> tuple[list[Unit], dict[str, Any]]:
    """The units of `recording` worth fitting, and what sorting found for provenance
    (units, their spikes, the fragments merged, why each other unit was left, and with
    `truths` — every true cell's trough samples — SpikeInterface's score of the merged
    sorting per true cell). Units are named by their index in the sorter's output, and
    observed one per core in forked processes (forked.py).
    `spontaneous`: a separate spontaneous recording of the array (as recorded,
    preprocessed), sorted instead of `recording`'s quiet spans. `fitting_within_um`: each
    unit's fitting electrodes only this close to its reference (fit.observe)."""
    from ..conversions.mea_merging import merge_fragments
    from ..conversions.mea_sorting import SortingError, score_sorting, sort_spontaneous

    sorted_traces = detection if spontaneous is None else spontaneous[1]
    quiet = quiet_spans(sorted_traces)
    try:
        found, redundant = sort_spontaneous(sorted_traces, sorter, quiet)
    except SortingError as error:
        raise SubstratesError(f"{label}: {error}") from None
    units, names, merges = merge_fragments(sorted_traces, found, quiet)
    record: dict[str, Any] = {
        "session": label,
        "sorter": sorter,
        "redundant_units": redundant,
        "sorter_unit_spikes": [len(u) for u in found],
        "merges": [m.record() for m in merges],
        "units": names,
        "unit_spikes": [len(u) for u in units],
        "skipped": [],
    }
    matched: dict[int, int] = {}
    if truths is not None:
        record["scores"], matched = score_sorting(units, truths, recording.sampling_hz)
        for score in record["scores"]:  # the sorter's name for the matched unit
            score["unit"] = names[score["unit"]] if score["unit"] >= 0 else -1

    def observed(position: int) -> Observed | str:
        """Unit `position`'s observation, or why it is left."""
        spikes = units[position]
        if len(spikes) < MIN_SPIKES:
            return f"{len(spikes)} spikes (fewer than {MIN_SPIKES})"
        try:
            return observe(
                recording, model, seed, detection, artefacts, spikes, spontaneous, fitting_within_um
            )
        except ValueError as error:
            return str(error)

    chosen = []
    for position, seen in enumerate(forked_map(observed, range(len(units)))):
        index = names[position]
        if isinstance(seen, str):
            spikes = len(units[position])
            record["skipped"].append({"unit": index, "spikes": spikes, "reason": seen})
        else:
            chosen.append(Unit(index, seen, matched.get(position)))
    record["fitted_units"] = [u.index for u in chosen]
    return chosen, record
