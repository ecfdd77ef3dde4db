"""`mea.jaxley` sessions: what they hold, their NWB round trip through pynwb, refused
currents, float32 against float64, and `mea.jaxley_gpu` (its code path on the CPU device
equals `mea.jaxley`; asked for a GPU where none is, it says why)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.gpu import cuda_device_count
from substrates.backends.registry import create_backend
from substrates.errors import BackendUnavailableError, SubstratesError

pytest.importorskip("jaxley")
SMALL = {
    "spontaneous_s": 2.0,
    "stim_electrodes": 4,
    "currents_ua": [2.0, 4.0, 8.0, 16.0],
    "pair_electrodes": 2,
    "pair_currents_ua": [6.0],
    "trials": 3,
    "seed": 3,
}


@pytest.fixture(scope="module")
def session():
    return create_backend("mea.jaxley", SMALL)


def test_session_holds_spikes_and_the_protocol(session) -> None:
    recording, truth = session.recording(), session.ground_truth()
    assert recording.channels == 64 == session.capabilities.channels
    assert session.capabilities.stimulate and session.capabilities.models_cells
    stim = recording.stimulation
    assert len(stim) == (4 * 4 + 2) * 3 == len(truth.evoked)
    assert sorted({len(e) for e in stim.electrodes}) == [1, 2]
    assert {stim.currents(k) for k in range(len(stim)) if len(stim.electrodes[k]) == 2} == {
        (6.0, 6.0),
        (6.0, -6.0),
    }
    assert 0 < truth.evoked.mean() < 1
    assert len(truth.spike_times_s) > 5 and truth.spike_times_s.max() < 2.0
    # A spontaneous spike's trough stands out of the noise on the cell's strongest channel.
    traces = recording.get_traces(0, round(2.0 * recording.sampling_hz))
    assert traces.min() < -6 * session.options.noise_uv


def test_nwb_round_trip_keeps_traces_and_patterns(session, tmp_path) -> None:
    pytest.importorskip("pynwb")
    from substrates.datasets.mea.nwb import read_nwb, write_nwb

    recording = session.recording()
    write_nwb(recording, tmp_path / "s.nwb")
    again = read_nwb(tmp_path / "s.nwb")
    assert np.array_equal(again.get_traces(1000, 3000), recording.get_traces(1000, 3000))
    assert again.stimulation.weights == recording.stimulation.weights
    assert np.allclose(again.stimulation.time_s, recording.stimulation.time_s)
    assert [again.stimulation.currents(k) for k in range(5)] == [
        recording.stimulation.currents(k) for k in range(5)
    ]


def test_currents_beyond_the_model_are_refused(session) -> None:
    from substrates.datasets.mea.recording import Stimulation

    with pytest.raises(ValueError, match=r"\(0, 20.0\] µA"):
        create_backend("mea.jaxley", {**SMALL, "currents_ua": [25.0]})
    pulse = Stimulation(np.array([0.001]), ((5,),), np.array([30.0]), ("triphasic",))
    with pytest.raises(SubstratesError, match="30 µA on electrode 5 is outside"):
        session.stimulate(pulse)
    response = session.stimulate(
        Stimulation(np.array([0.001]), ((5,),), np.array([3.0]), ("biphasic",))
    )
    assert response.channels == 64 and response.stimulation.shape == ("biphasic",)


def test_float32_agrees_with_float64(session) -> None:
    single = create_backend("mea.jaxley", {**SMALL, "float64": False})
    model64, model32 = (b.cell_model(b.positions_um) for b in (session, single))
    theta = session.hidden[None]
    t64, t32 = model64.templates(theta)[0], model32.templates(theta)[0]
    assert np.abs(t64 - t32).max() < 0.02 * np.abs(t64).max()


def test_gpu_code_path_on_the_cpu_equals_the_cpu_backend(session) -> None:
    twin = create_backend("mea.jaxley_gpu", {**SMALL, "device": "cpu", "batch": 64})
    assert twin.resolved_tier(twin.options) == "simulator"
    assert np.array_equal(twin.recording().get_traces(), session.recording().get_traces())
    assert np.array_equal(twin.ground_truth().evoked, session.ground_truth().evoked)


@pytest.mark.skipif(cuda_device_count() > 0, reason="this machine has a CUDA GPU")
def test_gpu_tier_without_a_gpu_says_why() -> None:
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        create_backend("mea.jaxley_gpu", SMALL)


def test_any_probeinterface_probe_is_an_array(tmp_path) -> None:
    """A probe written by probeinterface, its contacts wired to channels out of order: the
    geometry comes back in channel order, and the simulator records on it."""
    import probeinterface as pi

    from substrates.datasets.mea.geometry import from_probe_file

    probe = pi.generate_multi_columns_probe(
        num_columns=4, num_contact_per_column=5, xpitch=40.0, ypitch=40.0
    )
    wiring = np.random.default_rng(0).permutation(20)
    probe.set_device_channel_indices(wiring)
    pi.write_probeinterface(tmp_path / "probe.json", probe)
    positions = from_probe_file(tmp_path / "probe.json")
    assert np.array_equal(positions[wiring], probe.contact_positions)
    options = {**SMALL, "layout": "probe", "probe": str(tmp_path / "probe.json")}
    simulated = create_backend("mea.jaxley", options)
    assert simulated.capabilities.channels == 20
    assert np.array_equal(simulated.recording().positions_um, positions)
    with pytest.raises(SubstratesError, match=r"options\.probe"):
        create_backend("mea.jaxley", {**options, "probe": str(tmp_path / "none.json")}).recording()


@pytest.fixture(scope="module")
def crowded():
    return create_backend("mea.jaxley", {**SMALL, "array_cells": 3})


def test_several_cells_under_the_array(session, crowded) -> None:
    """array_cells: 3 — the hidden cell and its spikes are the one-cell session's; the
    others are drawn from the prior (inside the array's box, at other places), fire their
    own trains, are targeted by the protocol in turn (so each is evoked), and what is
    recorded is the sum of all three: the one-cell session's traces plus the others'
    spikes (checked where only another cell fires)."""
    truth, alone = crowded.ground_truth(), session.ground_truth()
    assert len(truth.cells) == 3 and truth.cells[0].others == ()
    assert truth.parameters == alone.parameters
    assert np.array_equal(truth.spike_times_s, alone.spike_times_s)
    positions = session.positions_um
    for cell in truth.cells:
        assert positions[:, 0].min() <= cell.parameters["x_um"] <= positions[:, 0].max()
        assert cell.evoked.any()  # the protocol targets every cell
    assert len({round(c.parameters["x_um"], 3) for c in truth.cells}) == 3
    # its own stimulation covers every cell's strongest electrodes: longer than alone's
    assert len(crowded.recording().stimulation) > len(session.recording().stimulation)
    model = crowded.cell_model(positions)
    other = truth.cells[1]
    theta = np.array([[other.parameters[p.name] for p in model.parameters]])
    template = model.templates(theta)[0]
    fs = crowded.options.sampling_hz
    onset = model.onset_ms * 1e-3
    busy = np.concatenate([truth.cells[0].spike_times_s, truth.cells[2].spike_times_s])
    alone_at = [t for t in other.spike_times_s if np.abs(busy - t).min() > 0.01]
    assert alone_at  # a spike of cell 1 with no other cell firing within 10 ms
    start = round((alone_at[0] - onset) * fs)
    width = template.shape[1]
    both = crowded.recording().get_traces(start, start + width)
    one = session.recording().get_traces(start, start + width)
    # the same noise stream: the difference is the other cell's template to an int16 step
    assert np.abs(both - one - template.T).max() <= 0.25 + 1e-6


def test_local_events_leave_out_only_what_cannot_reach_a_cell(crowded) -> None:
    """local_events on the three-cell session (in batches of 16, so something is left
    out): every cell's evoked spikes are the full simulation's, event by event, and the
    traces differ by at most what locality reports a left-out event could add (three
    cells) plus an int16 step."""
    from substrates.backends.mea.locality import SILENT_UV

    local = create_backend(
        "mea.jaxley", {**SMALL, "array_cells": 3, "local_events": True, "batch": 16}
    )
    told: list[tuple[int, int]] = []
    local.progress = lambda done, total: told.append((done, total))
    truth, full = local.ground_truth(), crowded.ground_truth()
    assert told == [(1, 3), (2, 3), (3, 3)]  # a bar can follow the cells
    saved = local.locality
    assert crowded.locality is None and saved is not None
    assert saved.total == 3 * len(full.evoked) and 0 < saved.simulated < saved.total
    assert 0 < saved.bound_uv <= SILENT_UV
    for mine, theirs in zip(truth.cells, full.cells, strict=True):
        assert np.array_equal(mine.evoked, theirs.evoked)
    difference = local.recording().get_traces().astype(float) - crowded.recording().get_traces()
    assert np.abs(difference).max() <= 3 * saved.bound_uv + 0.25 + 1e-6


def test_a_cell_that_fires_unstimulated_is_simulated_for_every_event(session) -> None:
    """With no current anywhere, a quiet cell is left out after one silent batch; a cell
    whose membrane noise alone makes it fire (high Na⁺, low K⁺: a corner of the prior)
    spikes in every batch, so none of its events is left out."""
    from substrates.backends.mea.locality import local_responses

    model = create_backend("mea.jaxley", {**SMALL, "batch": 16})._model
    unstimulated = np.zeros((48, len(session.positions_um)))
    delivered: list[np.ndarray] = []

    def keep(indices: np.ndarray, potentials: np.ndarray) -> None:
        assert len(indices) == len(potentials) == 16
        delivered.append(indices)

    quiet = local_responses(model, session.hidden, unstimulated, "triphasic", 25.0, 1, keep)
    assert (quiet.left_out, quiet.spiked.any()) == (32, False)
    assert np.array_equal(np.concatenate(delivered), quiet.simulated)
    restless = np.array([0.189, 0.024, 109.8, 0.69, -17.1, -51.8, 1.44, 21.8])
    firing = local_responses(model, restless, unstimulated, "triphasic", 25.0, 1, keep)
    assert firing.left_out == 0 and firing.spiked.mean() > 0.5
    assert sorted(np.concatenate(delivered[1:])) == list(range(48))


def test_traces_are_stored_a_block_at_a_time_as_all_at_once(monkeypatch) -> None:
    """Noise, the amplifier's baseline and its clipping, block by block (28 blocks here):
    the same int16 values as in one block."""
    from substrates.backends.mea import jaxley_sim

    impaired = {"offset_uv": 100.0, "drift_uv": 50.0, "line_uv": 20.0, "saturation_uv": 60.0}
    backend = create_backend("mea.jaxley", {**SMALL, **impaired})
    traces = np.random.default_rng(0).normal(0.0, 30.0, (1000, 64)).astype(np.float32)
    whole = backend._stored(traces.copy(), np.random.default_rng(1))
    monkeypatch.setattr(jaxley_sim, "NOISE_BLOCK", 64 * 37)
    blocks = backend._stored(traces.copy(), np.random.default_rng(1))
    assert np.array_equal(whole, blocks)
    assert (np.abs(whole) == 240).any()  # clipped at 60 µV, 240 steps of 0.25 µV


def test_a_cell_is_predicted_locally_as_in_full(crowded) -> None:
    """spikes_of (one cell, events in order of drive, batches of 16, the rest silent)
    against spikes on every event, for each of the three cells: the same outcomes, with
    events left out for some cell."""
    from substrates.backends.mea.locality import peak_drive_na, until_silent

    model = create_backend("mea.jaxley", {**SMALL, "array_cells": 3, "batch": 16})._model
    currents = crowded._currents(crowded.recording().stimulation)
    left_out = 0
    for cell in crowded.ground_truth().cells:
        theta = np.array([cell.parameters[p.name] for p in model.parameters])
        every = model.spikes(np.repeat(theta[None], len(currents), 0), currents, "triphasic")
        assert np.array_equal(model.spikes_of(theta, currents, "triphasic"), every)
        peaks = peak_drive_na(model.drive_na_per_ua(theta), currents)

        def simulate(indices: np.ndarray, count: int, theta=theta) -> tuple[np.ndarray, float]:
            hit = model.spikes(np.repeat(theta[None], len(indices), 0), currents[indices])
            return hit[:count], 0.0

        left_out += len(currents) - len(until_silent(peaks, 16, simulate)[1])
    assert left_out > 0


def test_scaled_parameters_move_every_drawn_cell_off_the_prior(crowded) -> None:
    """scale_parameters multiplies each drawn cell's value by its factor and nothing else:
    the same draws as the unscaled session, Na⁺ ×1.6 and K⁺ ×0.6; a parameter that is not
    biophysical, or a factor out of range, refused by name."""
    factors = {"gna_s_cm2": 1.6, "gk_s_cm2": 0.6}
    scaled = create_backend("mea.jaxley", {**SMALL, "array_cells": 3, "scale_parameters": factors})
    names = [p.name for p in crowded._model.parameters]
    expected = np.array([factors.get(n, 1.0) for n in names])
    np.testing.assert_array_equal(scaled.hidden, crowded.hidden * expected)
    np.testing.assert_array_equal(scaled.others, crowded.others * expected)
    with pytest.raises(ValueError, match="x_um: only gna_s_cm2"):
        create_backend("mea.jaxley", {**SMALL, "scale_parameters": {"x_um": 2.0}})
    with pytest.raises(ValueError, match="factors must lie in"):
        create_backend("mea.jaxley", {**SMALL, "scale_parameters": {"gk_s_cm2": 0.0}})
