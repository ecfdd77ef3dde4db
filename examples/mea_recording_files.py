"""One recording, two sources: a Litke .bin file built byte by byte from the published
layout and read by `mea.litke`, then seen by MNE and SpikeInterface.

    python examples/mea_recording_files.py
"""

import tempfile
from pathlib import Path

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
