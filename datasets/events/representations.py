"""Event representations as torch tensors (on any device): voxel grids, event frames, time
surfaces. Definitions follow tonic's, so tonic is the reference in the tests:

- voxel_grid: t normalised to [0, B] between the first and last event, polarity ±1, each
  event split bilinearly between bins ⌊t⌋ and ⌊t⌋ + 1 (bins ≥ B dropped): (B, H, W); on
  the CPU a numba pass, elsewhere torch (the tests check both against tonic);
- event_frames: event counts per (window, polarity, y, x) in windows of `window_us` from the
  first event: (T, 2, H, W);
- time_surfaces: per window end t_e, exp(−(t_e − t_last)/τ) of each (polarity, y, x)'s
  latest event so far (0 before its first): (T, 2, H, W).

Each has a numba pass for the CPU and torch ops for other devices (`*_torch`); the tests
check both against tonic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .events import Events


def _columns(events: Events, device: str) -> tuple[Any, Any, Any, Any]:
    import torch

    a = events.array
    return tuple(torch.as_tensor(a[k].astype(np.int64), device=device) for k in "txyp")


@njit(cache=True)
def _voxels(t, x, y, p, grid):
    bins = grid.shape[0]
    span = t[-1] - t[0]
    for i in range(t.size):
        scaled = bins * (t[i] - t[0]) / span if span > 0 else 0.0
        left = int(scaled)
        share = scaled - left
        sign = 1.0 if p[i] > 0 else -1.0
        if left < bins:
            grid[left, y[i], x[i]] += sign * (1.0 - share)
        if left + 1 < bins:
            grid[left + 1, y[i], x[i]] += sign * share


def voxel_grid(events: Events, bins: int, device: str = "cpu") -> Any:
    """(bins, H, W) float64: the Zhu et al. (2019) event volume, tonic's normalisation. On
    the CPU one numba pass over the events; on other devices torch."""
    import torch

    if device == "cpu":
        grid = np.zeros((bins, events.height, events.width))
        if len(events) >= 2:
            a = events.array
            _voxels(a["t"].astype(np.float64), a["x"], a["y"], a["p"], grid)
        return torch.from_numpy(grid)
    return voxel_grid_torch(events, bins, device)


def voxel_grid_torch(events: Events, bins: int, device: str) -> Any:
    """The voxel grid in torch ops on `device` (what voxel_grid runs off the CPU)."""
    import torch

    plane = events.height * events.width
    if len(events) < 2:
        return torch.zeros(bins, events.height, events.width, dtype=torch.float64, device=device)
    t, x, y, p = _columns(events, device)
    span = float(t[-1] - t[0])
    scaled = bins * (t - t[0]).double() / span if span > 0 else torch.zeros_like(t).double()
    left = scaled.long()
    share = scaled - left
    sign = p.double() * 2 - 1
    cell = left * plane + y * events.width + x
    # one weighted bincount over both halves; bins past the last (index ≥ bins) fall into
    # an overflow plane that is cut off
    index = torch.cat([cell, cell + plane])
    weight = torch.cat([sign * (1 - share), sign * share])
    grid = torch.bincount(index, weight, minlength=(bins + 2) * plane)
    return grid[: bins * plane].view(bins, events.height, events.width)


def _window(t: Any, window_us: int) -> tuple[Any, int]:
    import torch

    index = torch.div(t - t[0], window_us, rounding_mode="floor")
    return index, int(index[-1]) + 1


@njit(cache=True)
def _frames(t, x, y, p, window_us, frames):
    for i in range(t.size):
        frames[(t[i] - t[0]) // window_us, p[i], y[i], x[i]] += 1


@njit(cache=True)
def _surfaces(t, x, y, p, window_us, tau_us, latest, surfaces):
    i = 0
    for k in range(surfaces.shape[0]):
        end = t[0] + (k + 1) * window_us
        while i < t.size and t[i] < end:
            latest[p[i], y[i], x[i]] = max(latest[p[i], y[i], x[i]], t[i])
            i += 1
        surfaces[k] = np.exp((latest - end) / tau_us)


def event_frames(events: Events, window_us: int, device: str = "cpu") -> Any:
    """(T, 2, H, W) int64 counts; T windows of `window_us` from the first event (on the CPU
    one numba pass, elsewhere torch)."""
    import torch

    if device == "cpu" and len(events):
        a = events.array
        count = int((a["t"][-1] - a["t"][0]) // window_us) + 1
        frames = np.zeros((count, 2, events.height, events.width), np.int64)
        _frames(a["t"].astype(np.int64), a["x"], a["y"], a["p"], np.int64(window_us), frames)
        return torch.from_numpy(frames)
    return event_frames_torch(events, window_us, device)


def event_frames_torch(events: Events, window_us: int, device: str) -> Any:
    """The event frames in torch ops on `device` (what event_frames runs off the CPU)."""
    import torch

    if not len(events):
        return torch.zeros(0, 2, events.height, events.width, dtype=torch.long, device=device)
    t, x, y, p = _columns(events, device)
    window, count = _window(t, window_us)
    flat = ((window * 2 + p) * events.height + y) * events.width + x
    size = count * 2 * events.height * events.width
    return torch.bincount(flat, minlength=size).view(count, 2, events.height, events.width)


def time_surfaces(events: Events, window_us: int, tau_us: float, device: str = "cpu") -> Any:
    """(T, 2, H, W) float64 exponentially decayed latest-event times at each window end (on
    the CPU one numba pass, elsewhere torch)."""
    import torch

    if device == "cpu" and len(events):
        a = events.array
        t = a["t"].astype(np.int64)
        count = int((t[-1] - t[0]) // window_us) + 1
        shape = (2, events.height, events.width)
        surfaces = np.empty((count, *shape))
        _surfaces(
            t,
            a["x"],
            a["y"],
            a["p"],
            np.int64(window_us),
            float(tau_us),
            np.full(shape, -np.inf),
            surfaces,
        )
        return torch.from_numpy(surfaces)
    return time_surfaces_torch(events, window_us, tau_us, device)


def time_surfaces_torch(events: Events, window_us: int, tau_us: float, device: str) -> Any:
    """The time surfaces in torch ops on `device` (what time_surfaces runs off the CPU)."""
    import torch

    shape = (2, events.height, events.width)
    if not len(events):
        return torch.zeros(0, *shape, dtype=torch.float64, device=device)
    t, x, y, p = _columns(events, device)
    window, count = _window(t, window_us)
    cell = (p * events.height + y) * events.width + x
    latest = torch.full(
        (2 * events.height * events.width,), -np.inf, dtype=torch.float64, device=device
    )
    bounds = torch.searchsorted(window, torch.arange(count + 1, device=device))
    surfaces = []
    for k in range(count):
        a, b = int(bounds[k]), int(bounds[k + 1])
        latest.scatter_reduce_(0, cell[a:b], t[a:b].double(), reduce="amax")
        end = float(t[0]) + (k + 1) * window_us
        surfaces.append(torch.exp((latest - end) / tau_us).view(shape))
    return torch.stack(surfaces)
