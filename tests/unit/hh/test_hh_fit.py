"""The hh-fit method on simulated sessions with known truth: spike detection against the
simulator's own record of every spike, refinement from a perturbed truth, and the whole
fit from an NWB file (recovered parameters, held-out prediction accuracy)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend

pytest.importorskip("jaxley")
pytest.importorskip("sbi")
SESSION = {"spontaneous_s": 3.0, "trials": 6, "seed": 11}


@pytest.fixture(scope="module")
def session():
    return create_backend("mea.jaxley", SESSION)


def test_detection_finds_the_simulated_spikes(session) -> None:
    from substrates.models.hh.detection import evoked_spikes, spontaneous_spikes
    from substrates.models.hh.features import electrical_image

    recording, truth = session.recording(), session.ground_truth()
    found = spontaneous_spikes(recording, 20, 60)
    expected = np.round(truth.spike_times_s * recording.sampling_hz)
    gaps = np.abs(found.samples[:, None] - expected[None]).min(axis=1)
    assert len(found.samples) == len(expected) and gaps.max() < 0.0015 * recording.sampling_hz
    image = electrical_image(recording, found.samples, 20, 60)
    evoked = evoked_spikes(recording, image, found)
    assert np.mean(evoked == truth.evoked) > 0.97


def test_refinement_walks_back_to_the_truth(session) -> None:
    from substrates.models.hh.refine import refine
    from substrates.models.hh.summary import align

    model = session.cell_model(session.positions_um)
    truth = session.hidden
    template = model.templates(truth[None])[0]
    channel = int(template.min(axis=1).argmin())
    image = align(template, channel, 20)
    span = np.array([p.high - p.low for p in model.parameters])
    start = truth + np.random.default_rng(0).choice([-1, 1], len(truth)) * 0.06 * span
    refined = refine(model, start, image, channel, 20)
    assert refined.loss_after_uv2 < 0.01 * refined.loss_before_uv2
    geometry = slice(3, 8)  # the image pins the axon radius and where the cell lies
    assert np.all(np.abs(refined.theta - truth)[geometry] < 0.01 * span[geometry])


@pytest.mark.slow
def test_fit_from_nwb_recovers_the_cell_and_predicts_held_out_patterns(session, tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb, write_nwb
    from substrates.models.hh.fit import fit_cell

    write_nwb(session.recording(), tmp_path / "cell.nwb")
    recording = read_nwb(tmp_path / "cell.nwb")
    fit = fit_cell(recording, session.cell_model(recording.positions_um), simulations=200)
    pairs = zip(fit.parameters, fit.theta, session.hidden, strict=True)
    errors = np.array([p.distance(a, b) / (p.high - p.low) for p, a, b in pairs])
    # Where the cell lies and its axon's radius come back to a few % of the prior range;
    # the channel densities, which trade off against each other, more loosely.
    assert np.all(errors[3:] < 0.05) and np.mean(errors) < 0.1, errors
    assert len(fit.held_out) > 40 and fit.accuracy_held_out >= 0.904
    assert any(len(r.pattern.channels) == 2 for r in fit.held_out)
