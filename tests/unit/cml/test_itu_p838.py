"""ITU-R P.838-3 by formula, against the recommendation's check values and pycomlink's table."""

from __future__ import annotations

import numpy as np
import pytest
from pycomlink.processing.k_R_relation import ITU_table_2005

from substrates.datasets.cml.itu_p838 import k_alpha, rain_rate, specific_attenuation


@pytest.mark.parametrize(
    ("frequency", "k", "alpha"), [(10.0, 0.012167, 1.2571), (20.0, 0.091643, 1.05678)]
)
def test_check_values_horizontal(frequency: float, k: float, alpha: float) -> None:
    got_k, got_alpha = k_alpha(np.array([frequency]), "h")
    assert got_k[0] == pytest.approx(k, rel=5e-5)
    assert got_alpha[0] == pytest.approx(alpha, abs=5e-5)


@pytest.mark.parametrize(("polarization", "k_row", "alpha_row"), [("h", 1, 3), ("v", 2, 4)])
def test_matches_pycomlinks_itu_table_at_its_frequencies(
    polarization: str, k_row: int, alpha_row: int
) -> None:
    frequencies = ITU_table_2005[0]
    k, alpha = k_alpha(frequencies, polarization)
    # the table is the recommendation's own, rounded to 3–5 significant digits
    assert np.max(np.abs(k / ITU_table_2005[k_row] - 1)) < 6e-3
    assert np.max(np.abs(alpha - ITU_table_2005[alpha_row])) < 2e-3


def test_tilt_45_degrees_is_the_mean_of_h_and_v_for_k() -> None:
    f = np.array([15.0, 38.0])
    k_h, _ = k_alpha(f, "h")
    k_v, _ = k_alpha(f, "v")
    k_45, _ = k_alpha(f, tilt_deg=45.0)
    assert np.allclose(k_45, (k_h + k_v) / 2)


def test_rain_rate_inverts_the_power_law() -> None:
    rain = np.array([0.5, 5.0, 50.0])
    attenuation = specific_attenuation(rain, 23.0, "v") * 7.5  # dB over 7.5 km
    assert np.allclose(rain_rate(attenuation, 7.5, 23.0, "v"), rain)


def test_differentiable_in_torch() -> None:
    torch = pytest.importorskip("torch")
    f = torch.tensor([18.0], dtype=torch.float64, requires_grad=True)
    k, _ = k_alpha(f, "h")
    k.sum().backward()
    numeric = (k_alpha(np.array([18.0 + 1e-6]))[0] - k_alpha(np.array([18.0 - 1e-6]))[0]) / 2e-6
    assert float(f.grad) == pytest.approx(float(numeric[0]), rel=1e-5)


def test_unknown_polarization() -> None:
    with pytest.raises(ValueError, match="polarization must be 'h' or 'v'"):
        k_alpha(np.array([10.0]), "x")
