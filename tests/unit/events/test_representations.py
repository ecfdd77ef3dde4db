"""Voxel grids, event frames and time surfaces against tonic's functions on the same events."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events.representations import (
    event_frames,
    event_frames_torch,
    time_surfaces,
    time_surfaces_torch,
    voxel_grid,
    voxel_grid_torch,
)

from .test_files import random_events

tonic = pytest.importorskip("tonic.functional")


def for_tonic(events) -> np.ndarray:
    """tonic's layout (x, y, t, p) on a copy: its voxel grid rewrites p in place."""
    out = np.empty(len(events), [("x", "<i2"), ("y", "<i2"), ("t", "<i8"), ("p", "<i2")])
    for name in "xytp":
        out[name] = events.array[name]
    return out


@pytest.mark.parametrize("bins", [1, 5, 16])
def test_voxel_grid_equals_tonics(bins) -> None:
    events = random_events(20_000, seed=21, span_us=1_000_000, width=64, height=48)
    theirs = tonic.to_voxel_grid_numpy(for_tonic(events), (64, 48, 2), n_time_bins=bins)
    for ours in (voxel_grid(events, bins), voxel_grid_torch(events, bins, "cpu")):
        ours = ours.numpy()  # the numba pass, and the torch code that GPUs run
        assert ours.shape == (bins, 48, 64)
        assert np.allclose(ours, theirs[:, 0], atol=1e-12)


def test_event_frames_equal_tonics_time_windows() -> None:
    events = random_events(20_000, seed=22, span_us=1_000_000, width=64, height=48)
    window = 70_000
    theirs = tonic.to_frame_numpy(
        for_tonic(events), (64, 48, 2), time_window=window, include_incomplete=True
    )
    for ours in (event_frames(events, window), event_frames_torch(events, window, "cpu")):
        ours = ours.numpy()  # the numba pass, and the torch code that GPUs run
        assert ours.sum() == len(events)
        common = min(len(ours), len(theirs))
        assert common >= len(ours) - 1 and np.array_equal(ours[:common], theirs[:common])


def test_time_surfaces_equal_tonics() -> None:
    events = random_events(5_000, seed=23, span_us=500_000, width=32, height=24)
    theirs = tonic.to_timesurface_numpy(
        for_tonic(events), (32, 24, 2), dt=50_000, tau=20_000.0, include_incomplete=True
    )
    for ours in (
        time_surfaces(events, 50_000, tau_us=20_000.0),
        time_surfaces_torch(events, 50_000, 20_000.0, "cpu"),
    ):
        ours = ours.numpy()
        common = min(len(ours), len(theirs))
        assert common >= len(ours) - 1
        assert np.allclose(ours[:common], theirs[:common], atol=1e-12)
