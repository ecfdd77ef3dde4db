"""The hh-fit method on simulated sessions with known truth: spike detection against the
simulator's own record of every spike, refinement from a perturbed truth, and the whole
fit from an NWB file (recovered parameters, held-out prediction accuracy)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.adapters.conversions.mea_preprocessing import DEFAULT_PREPROCESSING

pytest.importorskip("jaxley")
pytest.importorskip("sbi")
SESSION = {"spontaneous_s": 3.0, "trials": 6, "seed": 11}


@pytest.fixture(scope="module")
def session(mea_session):
    return mea_session(**SESSION)


def test_detection_finds_the_simulated_spikes(session) -> None:
    from substrates.models.hh.detection import evoked_spikes, spontaneous_spikes
    from substrates.models.hh.features import electrical_image

    recording, truth = session.recording(), session.ground_truth()
    found = spontaneous_spikes(recording, 20, 60)
    expected = np.round(truth.spike_times_s * recording.sampling_hz)
    gaps = np.abs(found.samples[:, None] - expected[None]).min(axis=1)
    assert len(found.samples) == len(expected) and gaps.max() < 0.0015 * recording.sampling_hz
    image = electrical_image(recording, found.samples, 20, 60)
    evoked = evoked_spikes(recording, image, found, artefacts="keep")
    assert np.mean(evoked.spiked == truth.evoked) > 0.97


def test_spikes_missing_from_a_units_list_do_not_raise_the_threshold(session) -> None:
    """A sorted unit lacks some of its cell's spikes; quiet windows holding one scored as
    high as a spike and set the threshold there (the 512-electrode session: 12 of 1,599
    evoked spikes called). Such windows are now left out: with a third of the spikes
    dropped from the list, the calls equal those made with every spike listed."""
    from dataclasses import replace

    from substrates.models.hh.detection import evoked_spikes, spontaneous_spikes
    from substrates.models.hh.features import electrical_image

    recording, truth = session.recording(), session.ground_truth()
    found = spontaneous_spikes(recording, 20, 60)
    image = electrical_image(recording, found.samples, 20, 60)
    whole = evoked_spikes(recording, image, found, artefacts="keep")
    assert whole.unlisted == 0
    partial = replace(found, samples=found.samples[np.arange(found.samples.size) % 3 != 0])
    missing = evoked_spikes(recording, image, partial, artefacts="keep", null_windows=3000)
    assert missing.unlisted > 0 and missing.threshold == pytest.approx(whole.threshold, rel=0.3)
    assert np.mean(missing.spiked == truth.evoked) > 0.97


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


def test_refinement_turns_round_when_the_angle_starts_in_the_wrong_basin(session) -> None:
    """From 2.5 rad off the cell's angle Levenberg–Marquardt stays in the wrong basin (the
    image fits 10^4 µV² worse); starts turned round the circle find the cell again."""
    from substrates.models.hh.fit import refine_starts
    from substrates.models.hh.refine import refine, refine_all
    from substrates.models.hh.summary import align

    model = session.cell_model(session.positions_um)
    truth = session.hidden
    k = [p.name for p in model.parameters].index("angle_rad")
    template = model.templates(truth[None])[0]
    channel = int(template.min(axis=1).argmin())
    image = align(template, channel, 20)
    span = np.array([p.high - p.low for p in model.parameters])
    start = truth + np.random.default_rng(0).choice([-1, 1], len(truth)) * 0.06 * span
    start[k] = model.parameters[k].inside(truth[k] + 2.5)
    plain = refine(model, start, image, channel, 20)
    assert plain.loss_after_uv2 > 1e3 and model.parameters[k].distance(plain.theta[k], truth[k]) > 1
    starts = refine_starts(model, start[None])
    assert len(starts) == 4  # the start, and turned by a quarter, a half, three quarters
    together = refine_all(model, starts, image, channel, 20)  # in lockstep, one batch a step
    assert together[0].steps == plain.steps
    assert together[0].loss_after_uv2 == pytest.approx(plain.loss_after_uv2, rel=1e-9)
    assert np.allclose(together[0].theta, plain.theta, rtol=1e-9, atol=1e-12)
    best = min(together, key=lambda r: r.loss_after_uv2)
    assert best.loss_after_uv2 < 1e-6 and np.all(np.abs(best.theta - truth) < 1e-3 * span)


def test_a_bounded_score_is_exact_under_its_bound(session) -> None:
    """calibrate() scores its grid with the best score so far as a bound, so that points
    whose image alone scores worse simulate no thresholds; every point under the bound
    scores exactly as unbounded, every other one at least the bound."""
    from substrates.models.hh.calibrate import Target, score
    from substrates.models.hh.summary import align

    model = session.cell_model(session.positions_um)
    truth = session.hidden
    template = model.templates(truth[None])[0]
    channel = int(template.min(axis=1).argmin())
    electrodes = [channel]
    thresholds = model.thresholds(truth[None], np.array(electrodes), "triphasic")[0]
    target = Target(
        align(template, channel, 20),
        channel,
        20,
        np.full(len(template), 5.0),
        electrodes,
        thresholds * 0.9,
        "triphasic",
        np.full(1, 0.1),
    )
    span = np.array([p.high - p.low for p in model.parameters])
    steps = np.random.default_rng(1).normal(0, 0.02, (6, len(truth))) * span
    thetas = np.array(
        [[p.inside(v) for p, v in zip(model.parameters, t, strict=True)] for t in truth + steps]
    )
    full = score(model, thetas, target)
    bound = float(np.median(full))
    bounded = score(model, thetas, target, bound=bound)
    under = full < bound
    assert under.any() and (~under).any()
    assert np.allclose(bounded[under], full[under], rtol=1e-12)
    assert np.all(bounded[~under] >= bound) and np.all(bounded <= full + 1e-9)


def test_refinement_also_starts_from_the_image_when_npe_is_far_off(session) -> None:
    """NPE's guess 180 µm and 1 rad off, near the prior's deepest: from it and its turns
    Levenberg–Marquardt stays ≥ 3·10^4 µV² off; the starts anchored on the image (the soma
    over the electrode where the spike is deepest, mid depth, eight directions) find the
    cell."""
    from substrates.models.hh.fit import image_anchor, refine_starts
    from substrates.models.hh.refine import refine
    from substrates.models.hh.summary import align

    model = session.cell_model(session.positions_um)
    names = [p.name for p in model.parameters]
    truth = session.hidden
    template = model.templates(truth[None])[0]
    channel = int(template.min(axis=1).argmin())
    image = align(template, channel, 20)
    span = np.array([p.high - p.low for p in model.parameters])
    guess = truth + np.array([0, 0, 0, 0, 150.0, -100.0, 1.0, 0])
    guess[names.index("height_um")] = 24.0
    guess = np.array([p.inside(v) for p, v in zip(model.parameters, guess, strict=True)])
    anchor = image_anchor(model, session.positions_um[channel])
    assert anchor == pytest.approx(
        {
            "x_um": session.positions_um[channel][0],
            "y_um": session.positions_um[channel][1],
            "height_um": 15.0,
        }
    )
    starts = refine_starts(model, guess[None], anchor)
    assert len(starts) == 4 + 8 and np.allclose(starts[4:, names.index("height_um")], 15.0)
    fits = [refine(model, s, image, channel, 20) for s in starts]
    assert min(f.loss_after_uv2 for f in fits[:4]) > 3e4
    best = min(fits[4:], key=lambda r: r.loss_after_uv2)
    assert best.loss_after_uv2 < 1e-3 and np.all(np.abs(best.theta - truth) < 1e-2 * span)


@pytest.mark.science
def test_calibration_does_not_trade_the_image_for_noisy_thresholds(session) -> None:
    """From the true cell, with its exact image at the noise of 25 spikes and thresholds
    6% below the model's (what membrane noise does to I50, as measured on the simulated
    sessions), calibration keeps the channel densities (the old score, image χ² per
    sample plus threshold errors in units of 0.1, moved gNa 11% of its prior away on
    the default session); and a cell whose thresholds are truly off by 50% is moved."""
    from substrates.models.hh.calibrate import Target, calibrate, score
    from substrates.models.hh.summary import align

    model = session.cell_model(session.positions_um)
    truth = session.hidden
    template = model.templates(truth[None])[0]
    channel = int(template.min(axis=1).argmin())
    electrodes = [int(e) for e in np.argsort(template.min(axis=1))[:3]]
    exact = model.thresholds(truth[None], np.array(electrodes), "triphasic")[0]
    noise = np.full(len(template), 5.0 / np.sqrt(25))
    target = Target(
        align(template, channel, 20),
        channel,
        20,
        noise,
        electrodes,
        exact * np.exp(-0.06),
        "triphasic",
        np.full(3, 0.05),
    )
    span = np.array([p.high - p.low for p in model.parameters])
    kept = calibrate(model, truth, target)
    assert np.all(np.abs(kept - truth) / span < 0.02), (kept - truth) / span
    assert score(model, kept[None], target)[0] <= score(model, truth[None], target)[0]

    names = [p.name for p in model.parameters]
    gna = names.index("gna_s_cm2")
    wrong = truth.copy()
    wrong[gna] = model.parameters[gna].inside(truth[gna] * 1.5)
    moved = calibrate(model, wrong, target)
    assert abs(moved[gna] - truth[gna]) < abs(wrong[gna] - truth[gna])


def test_fitting_electrodes_can_be_kept_near_the_cell(session) -> None:
    """An amortised fit takes its fitting electrodes among those near the cell's reference
    (by default half of all singly stimulated ones, wherever they lie): half of those
    within reach, deepest first."""
    from substrates.adapters.conversions.mea_preprocessing import parse_preprocessing, preprocess
    from substrates.models.hh.fit import observe

    recording = session.recording()
    model = session.cell_model(recording.positions_um)
    detection = preprocess(recording, parse_preprocessing(DEFAULT_PREPROCESSING))
    seen = observe(recording, model, 0, detection, fitting_within_um=36.0)
    xy = recording.positions_um
    away = np.linalg.norm(xy[seen.observation.electrodes] - xy[seen.channel], axis=1)
    assert len(away) and (away <= 36.0).all()
    stimulated = {
        r.pattern.channels[0] for r in seen.fitting + seen.held_out if len(r.pattern.channels) == 1
    }
    near = [e for e in stimulated if np.linalg.norm(xy[e] - xy[seen.channel]) <= 36.0]
    assert len(away) == (len(near) + 1) // 2


def _fit_from_nwb(backend, folder, preprocessing: str = DEFAULT_PREPROCESSING):
    """The session of `backend` written as NWB, read back and fitted as hh-fit does."""
    from substrates.adapters.conversions.mea_preprocessing import parse_preprocessing, preprocess
    from substrates.datasets.mea.nwb import read_nwb, write_nwb
    from substrates.models.hh.fit import fit_cell, observe

    write_nwb(backend.recording(), folder / "cell.nwb")
    recording = read_nwb(folder / "cell.nwb")
    model = backend.cell_model(recording.positions_um)
    detection = preprocess(recording, parse_preprocessing(preprocessing))
    return fit_cell(
        recording, model, simulations=200, observed=observe(recording, model, 0, detection)
    )


@pytest.fixture(scope="module")
def clean_fit(session, tmp_path_factory):
    return _fit_from_nwb(session, tmp_path_factory.mktemp("clean"))


@pytest.mark.science
def test_fit_from_nwb_recovers_the_cell_and_predicts_held_out_patterns(session, clean_fit) -> None:
    fit = clean_fit
    pairs = zip(fit.parameters, fit.theta, session.hidden, strict=True)
    errors = np.array([p.distance(a, b) / (p.high - p.low) for p, a, b in pairs])
    # Where the cell lies and its axon's radius come back to a few % of the prior range;
    # the channel densities, which trade off against each other, more loosely.
    assert np.all(errors[3:] < 0.05) and np.mean(errors) < 0.1, errors
    assert len(fit.held_out) > 40 and fit.accuracy_held_out >= 0.904
    assert any(len(r.pattern.channels) == 2 for r in fit.held_out)


@pytest.mark.science
@pytest.mark.parametrize(
    "amplifier",
    [
        {"offset_uv": 100.0},
        {"drift_uv": 50.0, "drift_hz": 1.0},
        {"line_uv": 20.0, "line_hz": 50.0},
        {"artefact_uv_per_ua": 100.0, "saturation_uv": 1000.0},
    ],
    ids=["offsets", "drift", "mains", "artefacts"],
)
def test_fit_survives_what_amplifiers_add(clean_fit, amplifier, mea_session, tmp_path) -> None:
    """The issue's criterion: the same session with DC offsets (±100 µV), a 1 Hz ±50 µV
    drift, 50 Hz mains (10–30 µV) or the stimulation artefact (100 µV/µA, up to 1.7 mV,
    clipped at the amplifier's ±1 mV) added gives held-out accuracy within 2 points of
    the clean session's, on the same held-out patterns."""
    from substrates.models.hh.fit import observe

    humming = mea_session(**SESSION, **amplifier)
    if "offset_uv" in amplifier or "drift_uv" in amplifier:  # raw detection fails on these
        recording = humming.recording()
        with pytest.raises(ValueError, match=r"spontaneous spikes|too little quiet"):
            observe(recording, humming.cell_model(recording.positions_um))
    fit = _fit_from_nwb(humming, tmp_path)
    assert [r.pattern for r in fit.held_out] == [r.pattern for r in clean_fit.held_out]
    assert abs(fit.accuracy_held_out - clean_fit.accuracy_held_out) <= 0.02
