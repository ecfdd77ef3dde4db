"""Fragments of one cell merged after sorting, on traces built by hand: cells are waveforms
added at known spike samples to Gaussian noise, and the "sorter's" units are those trains
cut and shifted as spykingcircus2 cut them on the 512-electrode session (a main unit, a
fragment of new spikes, copies placed 0.2–0.6 ms after the trough). The merged units are
checked against the cells' true trains, which the merging never sees."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.conversions.mea_merging import merge_fragments
from substrates.datasets.mea.recording import ArraySource, Recording

FS = 20_000.0
SAMPLES = 200_000  # 10 s
T = np.arange(-20, 40)


def _trough(depth: float, width: float = 3.0) -> np.ndarray:
    return -depth * np.exp(-0.5 * (T / width) ** 2)


def _biphasic(depth: float) -> np.ndarray:
    return _trough(depth) + 0.8 * depth * np.exp(-0.5 * ((T - 8) / 4.0) ** 2)


def _train(rng: np.random.Generator, n: int) -> np.ndarray:
    """n spikes at least 5 ms apart."""
    gaps = 100 + rng.exponential(1500, n)
    return (200 + np.cumsum(gaps)).astype(np.int64)[(np.cumsum(gaps) + 400) < SAMPLES]


def _recording(cells: list[tuple[np.ndarray, dict[int, np.ndarray]]], seed: int = 0) -> Recording:
    """Noise (3 µV SD) on 16 channels plus each cell's waveform per channel at its spikes."""
    rng = np.random.default_rng(seed)
    traces = rng.normal(0.0, 3.0, (SAMPLES, 16))
    for spikes, waveforms in cells:
        for channel, wave in waveforms.items():
            for s in spikes:
                traces[s + T[0] : s + T[-1] + 1, channel] += wave
    return Recording(
        ArraySource(traces.astype(np.float32)), SAMPLES, FS, 1.0, np.arange(16), np.zeros((16, 2))
    )


def test_fragments_and_late_copies_rejoin_their_cell_and_other_cells_stay() -> None:
    """Cell A is sorted as a main unit (70% of its spikes), a fragment of the other 30%
    placed 0.3 ms late, and a copy of a fifth of the main unit's spikes placed 0.5 ms late;
    cell B has A's channels but another waveform (a trough then a peak, B larger on
    channel 2); cell C is A's waveform on other channels. Merged: A's unit holds exactly A's
    spikes; B and C are untouched."""
    rng = np.random.default_rng(1)
    a, b, c = _train(rng, 90), _train(rng, 80), _train(rng, 70)
    recording = _recording(
        [
            (a, {1: _trough(60), 2: _trough(30)}),
            (b, {1: _biphasic(40), 2: _biphasic(45)}),
            (c, {9: _trough(60), 10: _trough(30)}),
        ]
    )
    cut = rng.permutation(len(a))
    main, rest = np.sort(a[cut[:63]]), np.sort(a[cut[63:]])
    units = [main, b, rest + 6, c, main[::5] + 10]
    kept, names, merges = merge_fragments(recording, units, np.array([[0, SAMPLES]]))
    assert names == [0, 1, 3]
    assert {(m.host, m.fragment) for m in merges} == {(0, 2), (0, 4)}
    assert {m.fragment: m.lag_samples for m in merges} == {2: -6, 4: -10}
    np.testing.assert_array_equal(kept[0], a)
    np.testing.assert_array_equal(kept[1], b)
    np.testing.assert_array_equal(kept[2], c)
    assert next(m for m in merges if m.fragment == 4).new_spikes == 0  # copies add nothing


def test_a_second_cell_with_the_same_waveform_firing_too_close_is_not_merged() -> None:
    """Two cells with one waveform on the same channels, B firing 1.4 ms after every
    fifth spike of A (outside each other's template window, so the templates agree):
    their spikes would break a refractory period if they were one cell, so B stays."""
    rng = np.random.default_rng(2)
    a = _train(rng, 60)
    b = a[::5] + 28
    recording = _recording([(a, {1: _trough(60)}), (b, {1: _trough(60)})])
    _, names, merges = merge_fragments(recording, [a, b], np.array([[0, SAMPLES]]))
    assert names == [0, 1] and not merges


@pytest.mark.parametrize("depth", [20.0, 120.0])
def test_the_same_shape_at_another_size_is_another_cell(depth: float) -> None:
    """A's waveform at a third or twice its size, on A's channels: not merged (norm ratio
    beyond 1.5); the same at 0.8 of A's size is merged."""
    rng = np.random.default_rng(3)
    a, b = _train(rng, 60), _train(rng, 60)
    recording = _recording([(a, {1: _trough(60)}), (b, {1: _trough(depth)})])
    _, names, merges = merge_fragments(recording, [a, b], np.array([[0, SAMPLES]]))
    assert names == [0, 1] and not merges
    close = _recording([(a, {1: _trough(60)}), (b, {1: _trough(48)})])
    _, names, merges = merge_fragments(close, [a, b], np.array([[0, SAMPLES]]))
    assert names == [0] and merges[0].norm_ratio == pytest.approx(0.8, abs=0.05)
