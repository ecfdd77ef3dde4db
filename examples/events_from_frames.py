"""
# Frames in, events out

The DVS simulator watching a drifting texture, its events in
10 ms packets and as a voxel grid.

    python examples/events_from_frames.py
"""

import matplotlib.pyplot as plt
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

# %%
# ON minus OFF events per pixel over the whole recording: the texture's edges, drifting
# to the right, fire ON on one side and OFF on the other.
counts = np.zeros((96, 128))
np.add.at(counts, (events.array["y"], events.array["x"]), np.where(events.array["p"] == 1, 1, -1))
limit = float(np.abs(counts).max())
figure, axes = plt.subplots(figsize=(6, 4.5))
shown = axes.imshow(counts, cmap="RdBu_r", vmin=-limit, vmax=limit)
figure.colorbar(shown, label="ON − OFF events")
axes.set_title("events per pixel (x → right, y ↓)")
