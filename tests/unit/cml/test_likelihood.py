"""The links' likelihood: zeros of the chain's dry steps as measurements or censored."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.cml.network import random_network
from substrates.models.cml.grid import Grid
from substrates.models.cml.likelihood import LinkLikelihood
from substrates.models.cml.path_operator import PathOperator

torch = pytest.importorskip("torch")


def test_a_censored_dry_step_costs_nothing_below_its_limit_and_gaussian_above() -> None:
    network = random_network(6, 20.0, np.random.default_rng(3))
    grid = Grid(network.origin, 1.0, 20, 20)
    ends = (network.x0, network.y0, network.x1, network.y1)
    operator = PathOperator(
        ends, network.frequency, network.polarization, grid, samples=30, dtype=torch.float64
    )
    rain = (
        torch.full((3, 20, 20), 1.0, dtype=torch.float64)
        * torch.tensor([0.02, 2.0, 8.0])[:, None, None].double()
    )
    modelled = operator.attenuation(rain).numpy()
    observed = np.zeros_like(modelled[:1]).repeat(3, 0)  # the chain: dry everywhere
    observed[:, 0, 0] = 1.5  # one wet sublink, a measurement either way
    observed[:, 1, 0] = np.nan  # missing
    limit = 1.0
    plain = LinkLikelihood.of(operator, observed, 0.3, 0.1, 0.0)
    censored = LinkLikelihood.of(operator, observed, 0.3, 0.1, 0.0, dry_limit_db=limit)
    sigma = 0.3 + 0.1 * np.nan_to_num(observed)
    seen = np.isfinite(observed)
    zero = seen & (observed == 0)
    measured = ((modelled - np.nan_to_num(observed)) / sigma) ** 2 * (seen & ~zero)
    excess = (np.maximum(modelled - limit, 0) / sigma) ** 2 * zero
    brute_plain = 0.5 * (((modelled - np.nan_to_num(observed)) / sigma) ** 2 * seen).sum((1, 2))
    brute_censored = 0.5 * (measured + excess).sum((1, 2))
    assert np.allclose(plain.potential(rain).numpy(), brute_plain)
    assert np.allclose(censored.potential(rain).numpy(), brute_censored)
    # light rain whose attenuation stays under the limit: only the wet sublink's misfit
    assert modelled[0][zero[0]].max() < limit
    assert np.isclose(censored.potential(rain)[0].item(), 0.5 * measured[0].sum())
    assert plain.potential(rain)[0].item() > censored.potential(rain)[0].item()
    assert (excess[2] > 0).any()  # heavy rain on dry-called links still costs
