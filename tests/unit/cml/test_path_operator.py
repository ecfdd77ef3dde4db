"""The torch forward operator against the simulator's numpy forward model."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.cml.network import (
    attenuation_along,
    path_rain,
    random_network,
    wet_antenna_pastorek,
)
from substrates.datasets.cml.rain_fields import RainFieldModel, rain_fields
from substrates.models.cml.grid import Grid
from substrates.models.cml.path_operator import PathOperator

torch = pytest.importorskip("torch")

CELL_KM, SIZE = 0.5, 48


def _setup():
    network = random_network(30, SIZE * CELL_KM, np.random.default_rng(5))
    fields = rain_fields(RainFieldModel(size=SIZE, cell_km=CELL_KM), 4, 1.0, seed=2)
    grid = Grid(network.origin, CELL_KM, SIZE, SIZE)
    ends = (network.x0, network.y0, network.x1, network.y1)
    return (
        network,
        fields,
        PathOperator(ends, network.frequency, network.polarization, grid, samples=40),
    )


def test_attenuation_equals_the_simulators_forward_model() -> None:
    network, fields, operator = _setup()
    expected = attenuation_along(path_rain(fields, CELL_KM, network), network)
    ours = operator.attenuation(torch.as_tensor(fields)).numpy()
    assert np.allclose(ours, expected, rtol=1e-9, atol=1e-9)
    averaged = path_rain(fields, CELL_KM, network).mean(-1)
    with_antennas = operator.attenuation(torch.as_tensor(fields), wet_antenna_max_db=14.0).numpy()
    assert np.allclose(with_antennas - ours, wet_antenna_pastorek(averaged)[..., None], atol=1e-9)


def test_segments_sized_by_the_grid_converge_to_the_fine_integral() -> None:
    network, fields, _ = _setup()
    grid = Grid(network.origin, CELL_KM, SIZE, SIZE)
    ends = (network.x0, network.y0, network.x1, network.y1)
    sized = PathOperator(ends, network.frequency, network.polarization, grid)
    fine = attenuation_along(path_rain(fields, CELL_KM, network, samples=800), network)
    ours = sized.attenuation(torch.as_tensor(fields)).numpy()
    assert sized.segment_km.max() <= CELL_KM / 2 + 1e-12
    assert np.abs(ours - fine).max() < 0.03 * fine.max()
    averaged = path_rain(fields, CELL_KM, network, samples=800).mean(-1)
    assert np.allclose(sized.path_average(torch.as_tensor(fields)).numpy(), averaged, atol=0.05)


def test_gradients_match_finite_differences() -> None:
    _, fields, operator = _setup()
    rain = torch.as_tensor(fields[:1] + 0.5).requires_grad_(True)
    assert torch.autograd.gradcheck(
        lambda r: operator.attenuation(r, wet_antenna_max_db=14.0)[:, :3],
        (rain,),
        eps=1e-6,
        atol=1e-5,
    )


def test_a_grid_offset_moves_the_paths_with_it() -> None:
    network, fields, operator = _setup()
    shifted = Grid(network.origin, CELL_KM, SIZE, SIZE, x0_km=-3.0, y0_km=2.0)
    ends = (network.x0 - 3.0, network.y0 + 2.0, network.x1 - 3.0, network.y1 + 2.0)
    moved = PathOperator(ends, network.frequency, network.polarization, shifted, samples=40)
    field = torch.as_tensor(fields)
    assert torch.allclose(moved.attenuation(field), operator.attenuation(field))
