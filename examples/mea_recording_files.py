"""
# One recording, two sources

A Litke .bin file built byte by byte from the published
layout and read by `mea.litke`, then seen by MNE and SpikeInterface.

    python examples/mea_recording_files.py
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import substrates
from substrates.adapters.conversions.mea import to_mne, to_spikeinterface
from substrates.testing.mea import litke_header, litke_pack

folder = Path(tempfile.mkdtemp())
samples = np.random.default_rng(0).integers(-2048, 2048, (20_000, 513))  # 1 s at 20 kHz
(folder / "data000.bin").write_bytes(litke_header(513, 20_000) + litke_pack(samples))

source = substrates.load_backend("mea_litke", path=str(folder / "data000.bin"), gain_uv=0.25)
recording = source.recording()
print(
    f"{recording.channels} channels at {recording.sampling_hz:g} Hz, "
    f"{recording.duration_s:g} s; first sample of channel 0: "
    f"{recording.get_traces(0, 1)[0, 0]:.2f} µV"
)
raw = to_mne(recording)
print(f"MNE: {raw}")
print(f"SpikeInterface: {to_spikeinterface(recording)}")

# %%
# The first 5 ms of four channels as read back (µV), one above the other.
traces = recording.get_traces(0, 100)  # samples × channels
time_ms = np.arange(100) / recording.sampling_hz * 1e3
figure, axes = plt.subplots(figsize=(7, 4))
for channel in range(4):
    axes.plot(time_ms, traces[:, channel] + 1200 * channel, label=f"channel {channel}")
axes.set_xlabel("time (ms)")
axes.set_ylabel("voltage (µV), channels offset by 1200")
axes.legend(loc="upper right")
