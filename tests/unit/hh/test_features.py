"""Features and activation curves against planted truth: a spike waveform travelling along
an electrode row at a known velocity under noise, and spikes drawn from a known logistic
(also fitted by scikit-learn's logistic regression, the independent reference)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.mea.geometry import grid
from substrates.datasets.mea.recording import ArraySource, Recording
from substrates.models.hh.activation import fit_activation
from substrates.models.hh.features import (
    electrical_image,
    propagation_velocity,
    waveform_features,
)

HZ, VELOCITY_M_S = 50_000.0, 1.5


def template(t_ms: np.ndarray) -> np.ndarray:
    """A trough of −80 µV at 0 ms and a +30 µV peak 0.4 ms later (µV)."""
    return -80 * np.exp(-((t_ms / 0.08) ** 2)) + 30 * np.exp(-(((t_ms - 0.4) / 0.15) ** 2))


def planted(seed: int = 0, spikes: int = 300):
    rng = np.random.default_rng(seed)
    positions = grid(1, 30, 30.0)
    delay_ms = (positions[:, 0] - positions[0, 0]) * 1e-3 / VELOCITY_M_S  # µm → mm; mm/(m/s)
    samples = 400_000
    traces = rng.normal(0, 5, (samples, 30))
    times = np.sort(rng.choice(np.arange(100, samples - 200), spikes, replace=False))
    window = np.arange(-20, 120)
    for s in times:
        t = window[:, None] / HZ * 1e3 - delay_ms[None]
        traces[s + window] += template(t)
    recording = Recording(
        ArraySource(traces.astype(np.float32)), samples, HZ, 1.0, np.arange(30), positions
    )
    return recording, times, delay_ms


def test_electrical_image_features_and_velocity_recover_the_planted_cell() -> None:
    recording, times, delay_ms = planted()
    image = electrical_image(recording, times, before=20, after=120)
    truth = template(np.arange(-20, 120)[None] / HZ * 1e3 - delay_ms[:, None])
    assert np.abs(image - truth).max() < 5 * 5 / np.sqrt(len(times))  # 5 σ of the mean
    features = waveform_features(image, HZ, before=20)
    assert np.allclose(features.trough_uv, -80, atol=3)
    assert np.allclose(features.latency_ms, delay_ms, atol=0.5e3 / HZ)
    assert np.allclose(features.width_ms, 0.4, atol=0.05)
    velocity = propagation_velocity(features, recording.positions_um, min_trough_uv=40)
    assert velocity == pytest.approx(VELOCITY_M_S, rel=0.05)


def test_activation_curve_is_the_maximum_likelihood_logistic() -> None:
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(2)
    currents = np.linspace(0.5, 2.0, 20)
    probability = 1 / (1 + np.exp(-(currents - 1.2) / 0.1))
    trials = np.full(20, 50)
    spikes = rng.binomial(trials, probability)
    ours = fit_activation(currents, spikes, trials)
    x = np.repeat(currents, trials)[:, None]
    outcomes = [np.r_[np.ones(k), np.zeros(n - k)] for k, n in zip(spikes, trials, strict=True)]
    y = np.concatenate(outcomes)
    reference = sklearn.LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000).fit(x, y)
    slope, intercept = reference.coef_[0, 0], reference.intercept_[0]
    assert ours.threshold_ua == pytest.approx(-intercept / slope, rel=1e-4)
    assert ours.spread_ua == pytest.approx(1 / slope, rel=1e-3)
    assert abs(ours.threshold_ua - 1.2) < 0.05
    with pytest.raises(ValueError, match=r"0\.\.trials"):
        fit_activation(currents, trials + 1, trials)


def test_threshold_uncertainty_matches_the_spread_of_repeated_experiments() -> None:
    """The posterior SD of log I50 against brute force: the SD of the fitted log I50 over
    300 repeats of the same experiment (8 trials at each of the simulator's 12 currents),
    and the asymptotic (Fisher) SE when 400 trials trace the curve."""
    from substrates.models.hh.activation import threshold_log_sd

    rng = np.random.default_rng(5)
    currents = np.array([round(1.5 * 1.25**k, 2) for k in range(12)])
    probability = 1 / (1 + np.exp(-(currents - 4.0) / 0.4))
    eight = np.full(12, 8)
    repeats = [rng.binomial(eight, probability) for _ in range(300)]
    spread = np.std([np.log(fit_activation(currents, k, eight).threshold_ua) for k in repeats])
    ours = np.median([threshold_log_sd(currents, k, eight) for k in repeats[:40]])
    assert ours == pytest.approx(spread, rel=0.25), (ours, spread)

    z = (currents - 4.0) / 0.4
    weight = 400 * probability * (1 - probability)
    gradient = np.stack([-np.ones(12) / 0.4, -z], axis=1)  # d z / d(I50, log s)
    fisher = (weight[:, None, None] * gradient[:, :, None] * gradient[:, None, :]).sum(axis=0)
    asymptotic = np.sqrt(np.linalg.inv(fisher)[0, 0]) / 4.0
    many = threshold_log_sd(currents, rng.binomial(np.full(12, 400), probability), np.full(12, 400))
    assert many == pytest.approx(asymptotic, rel=0.15)
    # a step between two currents: known only to lie between them
    step = fit_activation(currents, (currents > 4.0) * 8, eight).threshold_log_sd
    assert 0.5 < step / (np.log(currents[6] / currents[5]) / np.sqrt(12)) < 1.2
