"""Preprocessing before spike detection: the spec's SpikeInterface steps, the filtered
recording read window by window against scipy's filters on the whole trace and numpy's
median reference, bad specs in one line; what the simulated amplifier adds (offsets,
drift, mains, stimulation artefacts, saturation), each against its formula."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.conversions.mea_preprocessing import (
    PreprocessingError,
    parse_preprocessing,
    preprocess,
)
from substrates.backends.mea.amplifier import baseline_uv
from substrates.datasets.mea.geometry import hexagonal
from substrates.datasets.mea.recording import ArraySource, Recording, Stimulation

FS = 20_000.0


@pytest.fixture
def raw() -> Recording:
    """4 s of 9 channels: white noise, DC offsets, a 1 Hz drift and 50 Hz mains, int16."""
    rng = np.random.default_rng(4)
    traces = rng.normal(0, 5, (80_000, 9)) + baseline_uv(
        80_000, 9, FS, offset_uv=100, drift_uv=50, drift_hz=1, line_uv=20, line_hz=50, rng=rng
    )
    stored = np.round(traces / 0.25).astype(np.int16)
    pulses = Stimulation(np.array([1.0]), ((3,),), np.array([2.0]), ("triphasic",))
    return Recording(
        ArraySource(stored), 80_000, FS, 0.25, np.arange(1, 10), hexagonal(3, 3, 30.0), pulses
    )


def test_spec_maps_onto_spikeinterface_steps() -> None:
    assert parse_preprocessing("bandpass:300-6000, cmr, notch:50, car, whiten") == [
        {"name": "bandpass_filter", "kwargs": {"freq_min": 300.0, "freq_max": 6000.0}},
        {"name": "common_reference", "kwargs": {"reference": "global", "operator": "median"}},
        {"name": "notch_filter", "kwargs": {"freq": 50.0}},
        {"name": "common_reference", "kwargs": {"reference": "global", "operator": "average"}},
        {"name": "whiten", "kwargs": {"mode": "global", "seed": 0}},
    ]
    assert parse_preprocessing("none") == [] and parse_preprocessing("HIGHPASS:250") == [
        {"name": "highpass_filter", "kwargs": {"freq_min": 250.0}}
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bandpass:300", "bandpass:LOW-HIGH"),
        ("bandpass:6000-300", "low edge must lie below"),
        ("highpass", "highpass:LOW"),
        ("cmr:3", "write it as cmr"),
        ("lowpass:3000", "steps are"),
        ("highpass:abc", "highpass:LOW"),
        ("notch:-50", "above 0"),
        ("bandpass:300-12000", "below 10000 Hz"),
        ("none,cmr", "steps are"),
        ("", "steps are"),
    ],
)
def test_bad_specs_say_which_step(spec, message) -> None:
    with pytest.raises(PreprocessingError, match="preprocessing step") as error:
        parse_preprocessing(spec, FS)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_bandpass_read_in_windows_equals_scipy_on_the_whole_trace(raw) -> None:
    pytest.importorskip("spikeinterface")
    from scipy.signal import butter, sosfiltfilt

    filtered = preprocess(raw, parse_preprocessing("bandpass:300-6000"))
    sos = butter(5, [300, 6000], btype="bandpass", fs=FS, output="sos")
    expected = sosfiltfilt(sos, raw.get_traces().astype(np.float64), axis=0)
    for start in (20_000, 41_234, 60_000):  # windows as detection reads them
        window = filtered.get_traces(start, start + 400, np.array([0, 4, 8]))
        assert np.abs(window - expected[start : start + 400][:, [0, 4, 8]]).max() < 0.05
    # the offsets, drift and mains are gone: what is left is the band of the white noise
    assert np.abs(np.median(filtered.get_traces(20_000, 60_000), axis=0)).max() < 0.5
    assert filtered.stimulation is raw.stimulation and filtered.positions_um is raw.positions_um


def test_median_reference_subtracts_each_samples_median(raw) -> None:
    pytest.importorskip("spikeinterface")
    referenced = preprocess(raw, parse_preprocessing("cmr")).get_traces(1000, 3000)
    traces = raw.get_traces(1000, 3000)
    expected = traces - np.median(traces, axis=1, keepdims=True)
    assert np.abs(referenced - expected).max() < 1e-3


def test_no_steps_is_the_recording_itself(raw) -> None:
    assert preprocess(raw, []) is raw


def test_whitening_decorrelates_the_channels(raw) -> None:
    pytest.importorskip("spikeinterface")
    white = preprocess(raw, parse_preprocessing("highpass:300,whiten"))
    covariance = np.cov(white.get_traces(20_000, 60_000).T)
    assert np.abs(covariance - np.eye(9)).max() < 0.1


def test_simulated_amplifier_adds_its_baseline_alone() -> None:
    pytest.importorskip("jaxley")
    from substrates.backends.registry import create_backend

    session = {
        "spontaneous_s": 0.3,
        "stim_electrodes": 0,
        "pair_electrodes": 0,
        "rows": 2,
        "columns": 3,
        "seed": 3,
    }
    clean = create_backend("mea.jaxley", session).recording()
    hum = {"offset_uv": 100.0, "drift_uv": 50.0, "line_uv": 20.0}
    humming = create_backend("mea.jaxley", {**session, **hum}).recording()
    expected = baseline_uv(
        clean.samples,
        clean.channels,
        clean.sampling_hz,
        drift_hz=1.0,
        line_hz=50.0,
        rng=np.random.default_rng((3, 17)),
        **hum,
    )
    difference = humming.get_traces() - clean.get_traces()
    assert np.abs(difference - expected).max() <= 0.25 + 1e-4  # one int16 step of 0.25 µV
    assert np.ptp(expected[:, 0]) > 20  # drift and mains move each channel


def test_mains_above_nyquist_is_refused() -> None:
    from substrates.backends.mea.jaxley_sim import JaxleyOptions

    with pytest.raises(ValueError, match="line_hz must lie below half of sampling_hz"):
        JaxleyOptions(line_hz=12_000)


def test_electrodes_without_distinct_positions_are_still_filtered(raw) -> None:
    pytest.importorskip("spikeinterface")
    from dataclasses import replace

    unplaced = replace(raw, positions_um=np.zeros((9, 2)))
    filtered = preprocess(unplaced, parse_preprocessing("highpass:300,cmr"))
    placed = preprocess(raw, parse_preprocessing("highpass:300,cmr"))
    assert np.array_equal(filtered.get_traces(1000, 2000), placed.get_traces(1000, 2000))


def test_simulated_artefact_follows_each_pulse_and_saturates() -> None:
    """A session with artefacts differs from the clean one by one artefact per pulse: the
    amplifier.artefact_uv of its currents, from its start (to one int16 step); with a
    saturation level no sample passes it."""
    pytest.importorskip("jaxley")
    from substrates.backends.mea.amplifier import artefact_uv
    from substrates.backends.registry import create_backend

    session = {
        "spontaneous_s": 0.3,
        "stim_electrodes": 2,
        "pair_electrodes": 2,
        "currents_ua": [2.0, 6.0],
        "pair_currents_ua": [3.0],
        "trials": 1,
        "rows": 2,
        "columns": 3,
        "seed": 4,
    }
    clean = create_backend("mea.jaxley", session)
    art = {"artefact_uv_per_ua": 150.0, "artefact_length_um": 40.0, "artefact_ms": 0.8}
    loud = create_backend("mea.jaxley", {**session, **art}).recording()
    recording = clean.recording()
    stim = recording.stimulation
    expected = np.zeros((recording.samples, recording.channels), np.float32)
    for k in range(len(stim)):
        currents = np.zeros(recording.channels)
        for e, c in zip(stim.electrodes[k], stim.currents(k), strict=True):
            currents[e] += c
        start = round(stim.time_s[k] * recording.sampling_hz)
        shape = {"uv_per_ua": 150.0, "length_um": 40.0, "decay_ms": 0.8, "pulse_ms": 0.15}
        wave = artefact_uv(currents, recording.positions_um, 160, recording.sampling_hz, **shape)
        expected[start : start + 160] += wave
    difference = loud.get_traces() - recording.get_traces()
    assert np.abs(difference - expected).max() <= 0.25 + 1e-3
    assert np.abs(expected).max() > 800  # 6 µA on its own electrode: 900 µV
    clipped = create_backend("mea.jaxley", {**session, **art, "saturation_uv": 500.0})
    traces = clipped.recording().get_traces()
    assert np.abs(traces).max() <= 500.0 and (np.abs(traces) == 500.0).sum() > 10


def test_a_materialised_recording_reads_as_the_lazy_one(raw, monkeypatch) -> None:
    """Computed once, block by block (here 7 blocks), into a float32 memory map: reads
    equal the lazy pipeline's windows, across block boundaries too, to well under the
    noise (SpikeInterface pads each read with the filter's margin, so a boundary leaves a
    trace only as small as the filter's transient after that margin); a folder without
    room keeps the lazy recording."""
    from substrates.adapters.conversions import mea_preprocessing

    lazy = preprocess(raw, parse_preprocessing("bandpass:300-6000,cmr", FS))
    monkeypatch.setattr(mea_preprocessing, "MATERIALISE_BLOCK", 12_000)
    done: list[int] = []
    kept = mea_preprocessing.materialised(lazy, lambda end, _: done.append(end))
    assert isinstance(kept.source, ArraySource) and done[-1] == raw.samples and len(done) == 7
    for start, end in ((0, 500), (11_800, 12_300), (35_000, 80_000)):
        assert np.abs(kept.get_traces(start, end) - lazy.get_traces(start, end)).max() < 0.01
    assert mea_preprocessing.materialised(kept) is kept
    monkeypatch.setattr(
        mea_preprocessing.shutil, "disk_usage", lambda _: type("U", (), {"free": 0})()
    )
    assert mea_preprocessing.materialised(lazy) is lazy
