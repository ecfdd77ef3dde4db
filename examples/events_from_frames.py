"""Frames in, events out: the DVS simulator watching a drifting texture, its events in
10 ms packets and as a voxel grid.

    python examples/events_from_frames.py
"""

import numpy as np

import substrates
from substrates.datasets.events.representations import voxel_grid
from substrates.datasets.events.synthetic import drifting_texture

simulator = substrates.load_backend("events_sim", preset="noisy")
frames, times_us = drifting_texture(128, 96, 0.1, velocity_px_s=(300, 0), seed=3)
events = simulator.simulate(frames, times_us)
on = np.mean(events.array["p"] == 1)
print(f"{len(events):,} events from {len(frames)} frames of 128 × 96, {on:.0%} ON")
for packet in list(events.windows(duration_us=10_000))[:3]:
    print(f"  packet of {len(packet):,} events from t = {packet.array['t'][0]} µs")
grid = voxel_grid(events, bins=5)
print(f"voxel grid {tuple(grid.shape)}, |sum| {float(grid.abs().sum()):.1f}")
