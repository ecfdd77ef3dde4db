"""A Litke recording (built from the byte layout) as MNE and SpikeInterface objects: same
samples in their units, positions, and stimulation pulses that mne.Epochs can cut around."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.mea.geometry import hexagonal
from substrates.datasets.mea.litke_bin import read_litke
from substrates.datasets.mea.recording import Recording, Stimulation
from substrates.testing.mea import litke_header as header
from substrates.testing.mea import litke_pack as pack


@pytest.fixture
def recording(tmp_path) -> Recording:
    rng = np.random.default_rng(3)
    samples = rng.integers(-500, 500, (4000, 9))
    (tmp_path / "r.bin").write_bytes(header(9, 4000) + pack(samples))
    base, _ = read_litke(tmp_path / "r.bin", hexagonal(2, 4, 30.0), gain_uv=0.25)
    pulses = Stimulation(
        np.array([0.05, 0.1, 0.15]),
        ((3,), (3, 4), (7,)),
        np.array([1.0, 1.5, 2.0]),
        ("biphasic",) * 3,
    )
    return Recording(
        base.source,
        base.samples,
        base.sampling_hz,
        base.gain_uv,
        base.electrode_ids,
        base.positions_um,
        pulses,
    )


def test_mne_gets_volts_metres_and_pulses(recording) -> None:
    mne = pytest.importorskip("mne")
    from substrates.adapters.conversions.mea import to_mne

    raw = to_mne(recording)
    assert raw.ch_names[0] == "E1" and raw.info["sfreq"] == 20_000
    assert np.allclose(raw.get_data().T, recording.get_traces() * 1e-6, rtol=1e-6)
    positions = np.array([ch["loc"][:2] for ch in raw.info["chs"]])
    assert np.allclose(positions, recording.positions_um * 1e-6)
    events, ids = mne.events_from_annotations(raw, verbose="error")
    assert list(events[:, 0]) == [1000, 2000, 3000] and "stim 3+4 1.5uA biphasic" in ids
    epochs = mne.Epochs(raw, events, tmin=-0.002, tmax=0.005, baseline=None, verbose="error")
    assert epochs.get_data().shape == (3, 8, 141)


def test_spikeinterface_gets_microvolts_and_the_probe(recording) -> None:
    pytest.importorskip("spikeinterface")
    from substrates.adapters.conversions.mea import to_spikeinterface

    si_recording = to_spikeinterface(recording, 500, 1500)
    assert si_recording.get_num_channels() == 8 and si_recording.get_num_samples() == 1000
    assert np.allclose(si_recording.get_traces(), recording.get_traces(500, 1500))
    assert np.allclose(si_recording.get_channel_locations(), recording.positions_um)


def test_mne_annotations_keep_bipolar_weights(recording) -> None:
    pytest.importorskip("mne")
    from dataclasses import replace

    from substrates.adapters.conversions.mea import to_mne

    pulses = Stimulation(
        np.array([0.05, 0.1, 0.15]),
        ((3, 4), (3, 4), (5, 6)),
        np.array([1.5, 1.5, 2.0]),
        ("biphasic",) * 3,
        ((1.0, 1.0), (1.0, -1.0), (1.0, -0.5)),
    )
    raw = to_mne(replace(recording, stimulation=pulses))
    assert list(raw.annotations.description) == [
        "stim 3+4 1.5uA biphasic",
        "stim 3-4 1.5uA biphasic",
        "stim 5-6*0.5 2uA biphasic",
    ]  # "together" and "opposed" pairs no longer read the same
