"""The CML simulator: rain fields, the forward operator, the measurement model, the truth."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.cml.sim import BASE_LOSS_DB, TSL_DBM
from substrates.backends.registry import create_backend
from substrates.datasets.cml.itu_p838 import k_alpha
from substrates.datasets.cml.network import attenuation_along, path_rain, random_network
from substrates.datasets.cml.rain_fields import (
    RainFieldModel,
    _spectral_amplitude,
    rain_fields,
    spectral_slope,
)
from substrates.models.cml.processing import process

START, END = "2020-06-01T00:00", "2020-06-01T06:00"


def test_uniform_rain_gives_the_closed_form_attenuation() -> None:
    network = random_network(20, 30.0, np.random.default_rng(1))
    fields = np.full((1, 60, 60), 7.5)
    attenuation = attenuation_along(path_rain(fields, 0.5, network), network)
    for sub in range(2):
        for pol in ("h", "v"):
            rows = network.polarization[:, sub] == pol
            k, alpha = k_alpha(network.frequency[rows, sub], pol)
            expected = k * 7.5**alpha * network.length[rows]
            assert np.allclose(attenuation[0, rows, sub], expected, rtol=1e-12)


def test_path_integral_converges_to_a_ten_times_finer_quadrature() -> None:
    fields = rain_fields(RainFieldModel(), 5, 1.0, seed=3)
    network = random_network(40, 32.0, np.random.default_rng(2))
    coarse = attenuation_along(path_rain(fields, 0.5, network, samples=40), network)
    fine = attenuation_along(path_rain(fields, 0.5, network, samples=400), network)
    rainy = fine > 1.0
    assert rainy.sum() > 20
    assert np.max(np.abs(coarse[rainy] / fine[rainy] - 1)) < 0.03


def test_rain_field_statistics_follow_the_model() -> None:
    model = RainFieldModel(beta=3.0, wet_fraction=0.3)
    rng = np.random.default_rng(0)
    gaussian = np.fft.ifft2(
        np.fft.fft2(rng.standard_normal((64, 64))) * _spectral_amplitude(model)
    ).real
    assert spectral_slope(gaussian) == pytest.approx(-3.0, abs=0.3)
    fields = rain_fields(model, 50, 1.0, seed=1)
    assert np.mean(fields > 0) == pytest.approx(0.3, abs=0.03)
    assert np.array_equal(fields, rain_fields(model, 50, 1.0, seed=1))
    assert not np.array_equal(fields, rain_fields(model, 50, 1.0, seed=2))


def test_noise_free_measurements_equal_the_true_rain_attenuation() -> None:
    sim = create_backend(
        "cml.sim",
        {
            "noise_db": 0,
            "rsl_step_db": 0,
            "drift_db_per_h": 0,
            "wet_antenna": False,
            "missing_fraction": 0,
            "links": 10,
        },
    )
    data = sim.load(START, END)
    truth = sim.ground_truth(START, END)
    observed = (data.tsl - data.rsl - BASE_LOSS_DB).transpose("cml_id", "sublink_id", "time")
    expected = truth.A_rain.transpose("cml_id", "sublink_id", "time")
    assert np.allclose(observed.values, expected.values, atol=1e-9)
    assert (data.tsl.values == TSL_DBM).all()


def test_measurement_model_adds_gaps_quantization_and_wet_antennas() -> None:
    sim = create_backend("cml.sim", {"links": 20, "missing_fraction": 0.01})
    data = sim.load(START, END)
    assert sim.cleaning.fill_values["rsl"] > 0 and np.isnan(data.rsl.values).any()
    rsl = data.rsl.values[np.isfinite(data.rsl.values)]
    assert np.allclose(np.round(rsl * 10), rsl * 10, atol=1e-6)  # 0.1 dB steps


def test_the_standard_chain_recovers_the_true_path_rain() -> None:
    sim = create_backend("cml.sim", {"seed": 4})
    data = sim.load(START, END)
    truth = sim.ground_truth(START, END)["R_path"].transpose("cml_id", "sublink_id", "time").values
    retrieved = process(data)["R"].transpose("cml_id", "sublink_id", "time").values
    valid = np.isfinite(retrieved)
    assert np.corrcoef(retrieved[valid], truth[valid])[0, 1] > 0.6  # 0.76 at seed 0


def test_gpu_code_path_on_the_cpu_equals_the_numpy_simulator() -> None:
    pytest.importorskip("torch")
    from substrates.backends.cml.sim_gpu import SimGpuBackend

    class OnCPU(SimGpuBackend):
        torch_device = "cpu"

    options = {"links": 15, "duration_h": 1.0, "seed": 5}
    ours = OnCPU(options)
    reference = create_backend("cml.sim", options)
    end = "2020-06-01T01:00"
    a, b = ours.load(START, end), reference.load(START, end)
    assert np.allclose(a.rsl.values, b.rsl.values, atol=1e-9, equal_nan=True)
    truth_a, truth_b = ours.ground_truth(START, end), reference.ground_truth(START, end)
    assert np.allclose(truth_a.rain.values, truth_b.rain.values, atol=1e-9)
    assert np.allclose(truth_a.A_rain.values, truth_b.A_rain.values, atol=1e-9)


def test_gpu_tier_without_a_gpu_fails_with_the_reason(monkeypatch) -> None:
    from substrates.errors import BackendUnavailableError

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        create_backend("cml.sim_gpu")


def test_a_real_networks_geometry_drives_the_simulator() -> None:
    from substrates.datasets.cml.opensense import open_dataset, pycomlink_example

    real, _ = open_dataset(pycomlink_example())
    sim = create_backend(
        "cml.sim", {"network": str(pycomlink_example()), "cell_km": 2.0, "duration_h": 1}
    )
    data = sim.load("2020-06-01T00:00", "2020-06-01T00:30")
    assert sim.capabilities.links == data.sizes["cml_id"] == 500
    for name in ("site_0_lat", "site_0_lon", "site_1_lat", "site_1_lon"):
        assert np.allclose(data[name].values, real[name].values, atol=1e-9)
    assert np.array_equal(data["frequency"].values, real["frequency"].values)
    assert np.array_equal(data["polarization"].values, real["polarization"].values)
    truth = sim.ground_truth("2020-06-01T00:00", "2020-06-01T00:30")
    side = truth.sizes["x_km"] * 2.0
    assert truth.sizes["x_km"] == truth.sizes["y_km"] and 150 < side < 200


def test_a_network_file_excludes_random_links_and_must_fit_the_grid() -> None:
    from substrates.datasets.cml.opensense import pycomlink_example
    from substrates.errors import SubstratesError

    with pytest.raises(ValueError, match="come from the network file"):
        create_backend("cml.sim", {"network": str(pycomlink_example()), "links": 20})
    sim = create_backend("cml.sim", {"network": str(pycomlink_example()), "cell_km": 0.2})
    with pytest.raises(SubstratesError, match="raise cell_km"):
        sim.load("2020-06-01T00:00", "2020-06-01T00:30")


def test_radar_rain_seen_by_the_links_matches_pycomlinks_own_path_averages() -> None:
    """Semi-synthetic truth: the radar's fields on the real network's cells. Averaged
    along each link it must agree with the path averages pycomlink ships, computed by its
    authors from the same radar (an independent reference for placement and timing)."""
    from substrates.datasets.cml.opensense import pycomlink_example
    from substrates.datasets.cml.radar_reference import path_reference, pycomlink_references

    sim = create_backend(
        "cml.sim",
        {
            "network": str(pycomlink_example()),
            "radar": "pycomlink",
            "cell_km": 1.0,
            "start": "2018-05-13T18:00",
            "duration_h": 1,
            "time_step_s": 300,
        },
    )
    truth = sim.ground_truth("2018-05-13T18:00", "2018-05-13T19:00")
    ours = truth["R_path"].isel(sublink_id=0).transpose("time", "cml_id").values
    theirs = path_reference(pycomlink_references()[1])  # links in the file's order
    theirs = theirs.sel(time=truth["time"].values).transpose("time", "cml_id").values
    both = np.isfinite(theirs) & (theirs + ours > 0.1)
    assert both.sum() > 1000
    assert np.corrcoef(ours[both], theirs[both])[0, 1] > 0.9
    assert np.median(ours[both]) == pytest.approx(np.median(theirs[both]), rel=0.15)


def test_radar_rain_needs_a_network_and_a_period_inside_the_file() -> None:
    from substrates.datasets.cml.opensense import pycomlink_example
    from substrates.errors import SubstratesError

    with pytest.raises(ValueError, match="needs a network"):
        create_backend("cml.sim", {"radar": "pycomlink"})
    sim = create_backend(
        "cml.sim",
        {
            "network": str(pycomlink_example()),
            "radar": "pycomlink",
            "cell_km": 2.0,
            "start": "2018-05-25T00:00",
        },
    )
    with pytest.raises(SubstratesError, match="the data hold 2018-05-10T00:00 to 2018-05-20"):
        sim.load("2018-05-25T00:00", "2018-05-25T01:00")
    late = create_backend(
        "cml.sim",
        {
            "network": str(pycomlink_example()),
            "radar": "pycomlink",
            "cell_km": 2.0,
            "start": "2018-05-20T23:00",
        },
    )
    with pytest.raises(SubstratesError, match="outside the radar's"):
        late.load("2018-05-20T23:00", "2018-05-21T01:00")


def test_anisotropy_lengthens_correlation_along_its_bearing_and_the_slope_is_set() -> None:
    model = RainFieldModel(size=128, anisotropy=4.0, orientation_deg=0.0, beta=2.0)
    spectrum = _spectral_amplitude(model) ** 2
    field = np.fft.ifft2(
        np.fft.fft2(np.random.default_rng(0).standard_normal((128, 128))) * np.sqrt(spectrum)
    ).real
    field = (field - field.mean()) / field.std()
    along = np.mean(field[:, 4:] * field[:, :-4])  # east
    across = np.mean(field[4:, :] * field[:-4, :])  # north
    assert along > across + 0.1


def test_the_simulators_wet_antenna_parameters_are_used() -> None:
    from substrates.datasets.cml.network import wet_antenna_pastorek

    sim = create_backend(
        "cml.sim", {"links": 20, "duration_h": 1, "wet_antenna_pastorek": (6.0, 0.7, 0.2)}
    )
    truth = sim.ground_truth("2020-06-01T00:00", "2020-06-01T01:00")
    expected = wet_antenna_pastorek(truth["R_path"].values, 6.0, 0.7, 0.2)
    assert np.allclose(truth["A_wet_antenna"].values, expected)
    assert truth["A_wet_antenna"].max() > 1.0


def test_each_link_has_its_own_power_law_when_a_spread_is_asked_for() -> None:
    """Each link's attenuation is k·k_scale·R^(α + alpha_shift) with ITU's k and α (the
    closed form under uniform rain), the draws have the SDs asked for, and the spread
    changes nothing else (the same rain, drift and noise)."""
    options = {"links": 400, "duration_h": 1, "rsl_step_db": 0, "missing_fraction": 0}
    plain = create_backend("cml.sim", options)
    spread = create_backend("cml.sim", options | {"power_law_spread": (0.2, 0.05)})
    window = ("2020-06-01T00:00", "2020-06-01T01:00")
    truth, other = plain.ground_truth(*window), spread.ground_truth(*window)
    assert np.array_equal(truth["rain"].values, other["rain"].values)
    assert (truth["k_scale"].values == 1).all() and (truth["alpha_shift"].values == 0).all()
    assert np.log(other["k_scale"].values).std() == pytest.approx(0.2, rel=0.15)
    assert other["alpha_shift"].values.std() == pytest.approx(0.05, rel=0.15)
    network = random_network(5, 30.0, np.random.default_rng(3))
    scale, shift = np.array([1.0, 0.5, 2.0, 1.2, 0.8]), np.array([0.0, 0.1, -0.1, 0.05, 0.0])
    attenuation = attenuation_along(
        path_rain(np.full((1, 60, 60), 9.0), 0.5, network), network, scale, shift
    )
    for link in range(5):
        for sub in range(2):
            pol = network.polarization[link, sub]
            k, alpha = k_alpha(network.frequency[link : link + 1, sub], pol)
            expected = k[0] * scale[link] * 9.0 ** (alpha[0] + shift[link]) * network.length[link]
            assert attenuation[0, link, sub] == pytest.approx(expected, rel=1e-12)
    # the drift and noise are the same draws: only the rain attenuation differs
    difference = plain.load(*window)["rsl"] - spread.load(*window)["rsl"]
    changed = other["A_rain"] - truth["A_rain"]
    assert np.allclose(difference.values, changed.values, atol=1e-9, equal_nan=True)


def test_the_baseline_fluctuation_has_the_sd_and_correlation_time_asked_for() -> None:
    """An Ornstein–Uhlenbeck fluctuation: its SD over many links and its lag-k
    autocorrelation exp(−k Δt / τ), on top of a drift set to zero."""
    sim = create_backend(
        "cml.sim",
        {
            "links": 300,
            "duration_h": 6,
            "drift_db_per_h": 0,
            "baseline_fluctuation_db": 0.4,
            "baseline_fluctuation_min": 20.0,
        },
    )
    baseline = sim.ground_truth(START, END)["baseline"].values - BASE_LOSS_DB
    assert baseline.std() == pytest.approx(0.4, rel=0.05)
    series = baseline.reshape(-1, baseline.shape[-1])
    for lag in (5, 20):
        a, b = series[:, :-lag].ravel(), series[:, lag:].ravel()
        assert np.corrcoef(a, b)[0, 1] == pytest.approx(np.exp(-lag / 20.0), abs=0.03)
    with pytest.raises(ValueError, match="power_law_spread"):
        create_backend("cml.sim", {"power_law_spread": (-0.1, 0.0)})
