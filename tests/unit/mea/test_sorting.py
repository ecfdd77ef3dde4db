"""Spike sorting through SpikeInterface's spykingcircus2 on a simulated array of three cells,
scored by SpikeInterface's ground-truth comparison against the simulator's spike times
(which the sorter never sees); and the scoring itself on trains built by hand."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.conversions.mea_merging import merge_fragments
from substrates.adapters.conversions.mea_sorting import (
    SortingError,
    score_sorting,
    sort_spontaneous,
)

pytest.importorskip("jaxley")
pytest.importorskip("hdbscan")


def test_spikes_of_joined_quiet_spans_map_back_to_the_recording() -> None:
    """Quiet spans [100, 200), [300, 350), [1000, 1100) joined end to end: a spike at
    joined sample 10 is recording sample 110, 120 is 320, 160 is 1010; spikes within 5
    samples of a join (joined 96 and 152) are dropped, not those at the joined ends."""
    from substrates.adapters.conversions.mea_sorting import _in_recording

    spans = np.array([[100, 200], [300, 350], [1000, 1100]])
    joined = np.array([160, 10, 120, 96, 152, 2, 249, 260])
    assert _in_recording(joined, spans, 5).tolist() == [102, 110, 320, 1010, 1099]


def test_scoring_pairs_units_with_cells_and_counts_misses() -> None:
    """Unit 1 is cell 0 less a fifth of its spikes, unit 0 is cell 1 exactly, unit 2 is
    noise: recall 0.8 and 1, precision 1; the noise unit matches nothing."""
    rng = np.random.default_rng(0)
    cells = [np.sort(rng.choice(200_000, 50, replace=False)) for _ in range(2)]
    units = [cells[1], cells[0][10:], np.sort(rng.choice(200_000, 30, replace=False))]
    scores, matched = score_sorting(units, cells, 20_000.0)
    assert matched == {1: 0, 0: 1}
    assert scores[0]["recall"] == pytest.approx(0.8) and scores[0]["precision"] == 1.0
    assert scores[1]["accuracy"] == 1.0


def test_unknown_sorter_is_one_line() -> None:
    with pytest.raises(SortingError, match="unknown sorter 'kilosort4'"):
        sort_spontaneous(None, "kilosort4", 100)  # type: ignore[arg-type]


@pytest.mark.science
def test_spykingcircus2_finds_the_cells_of_a_crowded_array() -> None:
    """Three cells (10 s before stimulation, ~100 spikes each): every cell is matched by a
    unit, and after fragments are merged each cell's unit holds at least 90 % of the
    cell's spikes that any sorted unit found (within 0.75 ms, the merge's largest lag),
    and merging never lowers a cell's accuracy. spykingcircus2 is not deterministic here
    (nor with `deterministic_peaks_detection`): most runs find all three cells at 0.97–1.0
    and merging brings each to 0.99–1.0; in about one run in fifteen it misses a fifth of
    the third cell's spikes outright (no unit holds them: accuracy 0.73–0.78 before and
    after merging), which is the sorter's recall, not the merge's to recover; in another
    it split the third cell (0.76 before merging, 0.99 after). tridesclous2 on the same
    session split the third cell: 1.0, 1.0, 0.59."""
    from substrates.adapters.conversions.mea_preprocessing import (
        DEFAULT_PREPROCESSING,
        parse_preprocessing,
        preprocess,
    )
    from substrates.adapters.runs.hh_fit_units import true_troughs
    from substrates.backends.registry import create_backend
    from substrates.models.hh.quiet import quiet_spans

    session = create_backend(
        "mea.jaxley", {"spontaneous_s": 10.0, "trials": 2, "seed": 11, "array_cells": 3}
    )
    recording = session.recording()
    fs = recording.sampling_hz
    detection = preprocess(recording, parse_preprocessing(DEFAULT_PREPROCESSING, fs))
    units, _ = sort_spontaneous(detection, "spykingcircus2", quiet_spans(recording))
    truths = true_troughs(session.cell_model(recording.positions_um), session.ground_truth(), fs)
    scores, matched = score_sorting(units, truths, fs)
    assert len(matched) == 3
    # no unit repeats another's spikes (spykingcircus2 made such copies, shifted 0.25 ms)
    big = [u for u in units if len(u) >= 10]
    for a in range(len(big)):
        for b in range(a + 1, len(big)):
            near = np.abs(big[a][:, None] - big[b][None]).min(axis=1) <= 1e-3 * fs
            assert near.mean() < 0.5
    merged, _, _ = merge_fragments(detection, units, quiet_spans(recording))
    after, _ = score_sorting(merged, truths, fs)
    every_spike = np.sort(np.concatenate(units))
    for cell, score in zip(truths, after, strict=True):
        found = _within(cell, every_spike, 0.75e-3 * fs)
        held = _within(cell, merged[score["unit"]], 0.4e-3 * fs) if score["unit"] >= 0 else 0
        assert held >= 0.9 * found, (scores, after)
    for old, new in zip(scores, after, strict=True):
        assert new["accuracy"] >= old["accuracy"], (scores, after)


def _within(truth: np.ndarray, spikes: np.ndarray, samples: float) -> int:
    """How many of the true spike samples have a sorted spike within `samples`."""
    at = np.clip(np.searchsorted(spikes, truth), 1, len(spikes) - 1)
    gap = np.minimum(np.abs(spikes[at - 1] - truth), np.abs(spikes[at] - truth))
    return int((gap <= samples).sum())


def test_a_unit_copying_half_of_a_larger_ones_spikes_is_dropped() -> None:
    """spykingcircus2 sometimes adds a unit whose spikes are a subset of another's shifted
    0.25 ms; SpikeInterface's agreement (over both units' spikes) lets a small copy pass,
    so the sort drops any unit with half its spikes within 1 ms of a larger unit's. Two
    independent 10 Hz trains coincide by chance on a few percent and are both kept."""
    from substrates.adapters.conversions.mea_sorting import _without_copies

    fs, rng = 20_000, np.random.default_rng(4)
    large = np.sort(rng.choice(10 * fs, 100, replace=False))
    copy = np.sort(rng.choice(large, 40, replace=False) + 5)  # 0.25 ms later
    other = np.sort(rng.choice(10 * fs, 100, replace=False))
    kept = _without_copies([copy, large, other], round(1e-3 * fs))
    assert [len(u) for u in kept] == [100, 100]
    assert np.array_equal(kept[0], large) and np.array_equal(kept[1], other)


@pytest.mark.science
def test_spykingcircus2_sorts_the_quiet_spans_between_pulses() -> None:
    """Two cells firing through a protocol of pulses 50 ms apart, one second before the
    first: the 336 quiet spans joined end to end (12.7 s) are sorted, each spike mapped
    back to the recording; both cells are matched by a unit holding at least 80% of
    their spikes inside the spans (0.87 and 0.89 of all their spikes measured), and
    nearly nothing else."""
    from substrates.adapters.conversions.mea_preprocessing import (
        DEFAULT_PREPROCESSING,
        parse_preprocessing,
        preprocess,
    )
    from substrates.adapters.runs.hh_fit_units import true_troughs
    from substrates.backends.registry import create_backend
    from substrates.models.hh.quiet import inside, quiet_spans

    options = {
        "spontaneous_s": 1.0,
        "firing_throughout": True,
        "trial_ms": 50.0,
        "trials": 4,
        "stim_electrodes": 3,
        "pair_electrodes": 2,
        "seed": 11,
        "array_cells": 2,
        "artefact_uv_per_ua": 100,
    }
    session = create_backend("mea.jaxley", options)
    recording = session.recording()
    fs = recording.sampling_hz
    detection = preprocess(recording, parse_preprocessing(DEFAULT_PREPROCESSING, fs))
    spans = quiet_spans(detection)
    assert len(spans) > 300
    units, _ = sort_spontaneous(detection, "spykingcircus2", spans)
    merged, _, _ = merge_fragments(detection, units, spans)
    every = true_troughs(session.cell_model(recording.positions_um), session.ground_truth(), fs)
    truths = [t[inside(spans, t, 20, 40)] for t in every]  # what the sorter can see
    scores, matched = score_sorting(merged, truths, fs)
    assert len(matched) == 2, scores
    for score in scores:
        assert score["recall"] >= 0.8 and score["precision"] >= 0.95, scores
