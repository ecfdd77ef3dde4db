"""Map scores against their definitions: CRPS by quadrature and by an ensemble, coverage
of a known Gaussian, rain statistics of a field built to have them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from substrates.models.cml.evaluation import coverage, crps_gaussian, rain_statistics


@pytest.mark.parametrize(
    ("mean", "std", "truth"), [(1.0, 0.5, 1.7), (0.0, 2.0, -3.0), (2, 1e-3, 2)]
)
def test_crps_is_the_integral_of_the_squared_cdf_difference(mean, std, truth) -> None:
    """CRPS = ∫ (F(x) − 1{x ≥ y})² dx."""
    below, _ = quad(lambda x: norm.cdf(x, mean, std) ** 2, -np.inf, truth)
    above, _ = quad(lambda x: (1 - norm.cdf(x, mean, std)) ** 2, truth, np.inf)
    assert crps_gaussian(np.array(mean), np.array(std), np.array(truth)) == pytest.approx(
        below + above, rel=1e-6, abs=1e-9
    )


def test_crps_equals_the_ensemble_form_and_zero_spread_is_the_absolute_error() -> None:
    rng = np.random.default_rng(0)
    draws = rng.normal(1.0, 0.8, 200_000)
    ensemble = np.abs(draws - 0.2).mean() - 0.5 * np.abs(draws - rng.permutation(draws)).mean()
    assert crps_gaussian(np.array(1.0), np.array(0.8), np.array(0.2)) == pytest.approx(
        ensemble, rel=0.01
    )
    assert crps_gaussian(np.array([1.0]), np.array([0.0]), np.array([3.0]))[0] == 2.0


def test_coverage_of_a_calibrated_gaussian_is_its_level() -> None:
    rng = np.random.default_rng(1)
    mean, std = rng.normal(size=100_000), rng.uniform(0.5, 2, 100_000)
    truth = mean + std * rng.normal(size=100_000)
    assert coverage(mean, std, truth) == pytest.approx(0.9, abs=0.005)
    assert coverage(mean, std / 2, truth) < 0.7


def test_rain_statistics_of_a_field_with_known_quantiles() -> None:
    maps = np.zeros((2, 40, 50))
    rng = np.random.default_rng(2)
    wet = rng.random((2, 40, 50)) < 0.25
    maps[wet] = rng.exponential(2.0, wet.sum()) + 0.2
    stats = rain_statistics(maps)
    assert stats.wet_fraction == pytest.approx(0.25, abs=0.02)
    exponential = 0.2 + 2.0 * np.log([2, 10, 100])  # exponential quantiles, shifted
    assert np.allclose([stats.p50_mm_h, stats.p90_mm_h, stats.p99_mm_h], exponential, rtol=0.1)
    assert abs(stats.slope) < 0.5  # white noise: a flat spectrum
