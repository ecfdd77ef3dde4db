"""The reconstruction's prior: its spectrum, its wet fraction, and levels fitted to links."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.cml.network import path_rain, random_network
from substrates.datasets.cml.rain_fields import RainFieldModel, rain_fields, spectral_slope
from substrates.models.cml.grid import Grid
from substrates.models.cml.path_operator import PathOperator
from substrates.models.cml.rain_prior import FieldPrior, RainPrior, fit_levels, threshold

torch = pytest.importorskip("torch")


def _draws(prior: FieldPrior, count: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn((count, *prior.latent_shape), generator=generator, dtype=torch.float64)


def test_gaussian_field_has_unit_variance_and_the_power_law_spectrum() -> None:
    prior = FieldPrior(RainPrior(beta=3.0, pad=1.0), (64, 64), torch.float64, "cpu")
    g = prior.gaussian(_draws(prior, 64)).numpy()
    assert g.var() == pytest.approx(1.0, rel=0.1)
    slopes = [spectral_slope(field) for field in g[:16]]
    assert np.mean(slopes) == pytest.approx(-3.0, abs=0.3)


def test_hard_rain_covers_the_wet_fraction() -> None:
    prior = FieldPrior(RainPrior(), (48, 48), torch.float64, "cpu")
    v = _draws(prior, 256)
    for fraction in (0.1, 0.35, 0.6):
        theta = torch.full((256,), float(threshold(fraction)), dtype=torch.float64)
        rain = prior.rain(v, theta, torch.ones(256, dtype=torch.float64), hard=True)
        assert float((rain > 0).double().mean()) == pytest.approx(fraction, abs=0.05)


def _operator(links: int) -> PathOperator:
    network = random_network(links, 32.0, np.random.default_rng(1))
    grid = Grid(network.origin, 0.5, 64, 64)
    ends = (network.x0, network.y0, network.x1, network.y1)
    return PathOperator(ends, network.frequency, network.polarization, grid), network


@pytest.mark.parametrize(("fraction", "median"), [(0.15, 1.0), (0.4, 3.0)])
def test_levels_of_fields_drawn_from_the_prior_are_recovered(fraction, median) -> None:
    operator, _ = _operator(150)
    prior = FieldPrior(RainPrior(), (64, 64), torch.float64, "cpu")
    count = 40
    theta = torch.full((count,), float(threshold(fraction)), dtype=torch.float64)
    rain = prior.rain(_draws(prior, count, seed=9), theta, torch.full((count,), median), hard=True)
    along = operator.path_average(rain).numpy()
    generator = torch.Generator().manual_seed(0)
    wet, level = fit_levels(prior, operator, along, window=count, generator=generator)
    assert np.median(wet) == pytest.approx(fraction, abs=0.05)
    assert np.median(level) == pytest.approx(median, rel=0.2)


@pytest.mark.parametrize(("fraction", "median"), [(0.15, 1.0), (0.3, 3.0), (0.5, 2.0)])
def test_levels_fitted_to_the_simulators_links_are_near_its_levels(fraction, median) -> None:
    model = RainFieldModel(size=64, cell_km=0.5, wet_fraction=fraction, median_mm_h=median)
    fields = rain_fields(model, 40, 120.0, seed=4)  # two hours apart: nearly independent
    operator, network = _operator(150)
    along = path_rain(fields, 0.5, network).mean(-1)
    prior = FieldPrior(RainPrior(pad=1.0), (64, 64), torch.float64, "cpu")
    wet, level = fit_levels(prior, operator, along, generator=torch.Generator().manual_seed(0))
    assert np.median(wet) == pytest.approx(fraction, abs=0.1)
    assert 0.5 < np.median(level) / median < 1.5


def test_dry_steps_get_no_rain() -> None:
    operator, _ = _operator(20)
    prior = FieldPrior(RainPrior(), (64, 64), torch.float64, "cpu")
    wet, level = fit_levels(prior, operator, np.zeros((2, 20)))
    assert (wet == 0).all() and (level == 0).all()
