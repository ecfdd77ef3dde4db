"""Reconstruction baselines: IDW against brute force, kriging's exactness, scores on truth."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.models.cml.grid import link_midpoints_km
from substrates.models.cml.reconstruct import field_scores, idw, ordinary_kriging

RNG = np.random.default_rng(0)
POINTS = RNG.uniform(0, 30, (40, 2))
VALUES = RNG.gamma(1.0, 2.0, 40)
GRID = RNG.uniform(0, 30, (200, 2))


def test_idw_equals_brute_force_with_all_neighbours() -> None:
    distance = np.linalg.norm(GRID[:, None] - POINTS[None], axis=-1)
    weights = distance**-2
    expected = (weights * VALUES).sum(axis=1) / weights.sum(axis=1)
    assert np.allclose(idw(POINTS, VALUES, GRID, nnear=len(POINTS)), expected, rtol=1e-12)


def test_both_are_exact_at_the_links_and_keep_constants() -> None:
    assert np.allclose(idw(POINTS, VALUES, POINTS), VALUES)
    assert np.allclose(ordinary_kriging(POINTS, VALUES, POINTS), VALUES, atol=1e-6)
    assert np.allclose(ordinary_kriging(POINTS, np.full(40, 3.0), GRID), 3.0)
    assert np.allclose(idw(POINTS, np.full(40, 3.0), GRID), 3.0)


def test_missing_values_are_left_out() -> None:
    values = VALUES.copy()
    values[:5] = np.nan
    assert np.isfinite(idw(POINTS, values, GRID)).all()
    assert np.isfinite(ordinary_kriging(POINTS, values, GRID)).all()


def test_scores() -> None:
    reference = RNG.normal(size=100)
    assert field_scores(reference, reference).rmse == 0
    shifted = field_scores(reference + 1.0, reference)
    assert shifted.bias == pytest.approx(1.0) and shifted.pearson == pytest.approx(1.0)


def test_maps_from_true_path_rain_resemble_the_true_field() -> None:
    sim = create_backend("cml.sim", {"links": 80, "seed": 1})
    start, end = "2020-06-01T00:00", "2020-06-01T06:00"
    data, truth = sim.load(start, end), sim.ground_truth(start, end)
    points = link_midpoints_km(data, origin=(57.7, 11.97))
    x, y = np.meshgrid(truth.x_km.values, truth.y_km.values)
    grid = np.stack([x.ravel(), y.ravel()], axis=1)
    scores = {"idw": [], "kriging": []}
    for step in range(30, 360, 30):
        values = truth.R_path.isel(time=step, sublink_id=0).values
        reference = truth.rain.isel(time=step).values.ravel()
        scores["idw"].append(field_scores(idw(points, values, grid), reference).pearson)
        scores["kriging"].append(
            field_scores(ordinary_kriging(points, values, grid), reference).pearson
        )
    assert np.nanmean(scores["idw"]) > 0.4 and np.nanmean(scores["kriging"]) > 0.4


def test_idw_equals_pycomlinks_kd_tree_interpolator() -> None:
    interpolator = pytest.importorskip("pycomlink.spatial.interpolator")
    theirs = interpolator.IdwKdtreeInterpolator(nnear=8, p=2)
    x, y = np.meshgrid(np.linspace(0, 30, 20), np.linspace(0, 30, 15))
    expected = theirs(POINTS[:, 0], POINTS[:, 1], VALUES, xgrid=x, ygrid=y)
    grid = np.stack([x.ravel(), y.ravel()], axis=1)
    assert np.allclose(idw(POINTS, VALUES, grid, power=2, nnear=8), expected.ravel(), rtol=1e-10)


def test_kriging_equals_pykrige_with_its_fitted_variogram_map_by_map() -> None:
    """Distances once, the dual solve, NaN links left out per map: pykrige's numbers."""
    pykrige = pytest.importorskip("pykrige.ok")
    from substrates.models.cml.kriging import OrdinaryKriging, fit_spherical

    rng = np.random.default_rng(11)
    values = rng.gamma(0.8, 2.0, (3, len(POINTS)))
    values[1, :6] = np.nan
    ours = OrdinaryKriging(POINTS, GRID)(values)
    for z, mine in zip(values, ours, strict=True):
        keep = np.isfinite(z)
        theirs = pykrige.OrdinaryKriging(
            POINTS[keep, 0], POINTS[keep, 1], z[keep], variogram_model="spherical"
        )
        expected, _ = theirs.execute("points", GRID[:, 0], GRID[:, 1])
        assert np.allclose(mine, np.clip(expected, 0, None), rtol=0, atol=1e-4)
        # Both fits stop where least squares' tolerances say, so their parameters differ
        # by ~1e-4 relative from machine to machine; what must agree is the objective both
        # minimise: pykrige's soft-L1 cost on its experimental variogram, at each answer.
        fitted = fit_spherical(POINTS[keep], z[keep])
        ours_cost = _soft_l1_cost(theirs, [fitted.psill, fitted.range_km, fitted.nugget])
        theirs_cost = _soft_l1_cost(theirs, theirs.variogram_model_parameters)
        assert ours_cost == pytest.approx(theirs_cost, rel=1e-6)


def _soft_l1_cost(kriging, parameters) -> float:
    """scipy's least_squares cost with loss='soft_l1' (what pykrige minimises to fit its
    variogram): ½ Σ 2(√(1 + r²) − 1) over the experimental variogram's lags."""
    residuals = kriging.variogram_function(parameters, kriging.lags) - kriging.semivariance
    return float(np.sum(np.sqrt(1 + residuals**2) - 1))


def test_kriging_with_one_variogram_equals_pycomlinks_interpolator() -> None:
    """pycomlink's `OrdinaryKrigingInterpolator` (sill 0.9, range 1, nugget 0.1): every map
    of one network solved from one factorisation."""
    interpolator = pytest.importorskip("pycomlink.spatial.interpolator")
    from substrates.models.cml.kriging import OrdinaryKriging, Variogram

    rng = np.random.default_rng(12)
    values = rng.gamma(0.8, 2.0, (3, len(POINTS)))
    x, y = GRID[:, 0], GRID[:, 1]
    kriging = OrdinaryKriging(POINTS, GRID, Variogram.from_sill(0.9, 1.0, 0.1))
    ours = kriging(values)
    theirs = interpolator.OrdinaryKrigingInterpolator()
    for z, mine in zip(values, ours, strict=True):
        expected = theirs(POINTS[:, 0], POINTS[:, 1], z, xgrid=x[:, None], ygrid=y[:, None])
        assert np.allclose(mine, np.clip(np.ravel(expected), 0, None), rtol=0, atol=1e-9)


def test_idw_breaks_ties_as_pycomlink_does() -> None:
    """Links on a lattice, queried at lattice points and cell centres: many neighbours at
    equal distances around the 8th, where the k-d tree's leaf size decides which are kept."""
    interpolator = pytest.importorskip("pycomlink.spatial.interpolator")
    lattice = np.stack(np.meshgrid(np.arange(7.0), np.arange(7.0)), axis=-1).reshape(-1, 2)
    values = np.random.default_rng(5).gamma(1.0, 2.0, len(lattice))
    x, y = np.meshgrid(np.arange(0.0, 6.5, 0.5), np.arange(0.0, 6.5, 0.5))
    theirs = interpolator.IdwKdtreeInterpolator(nnear=8, p=2)
    expected = theirs(lattice[:, 0], lattice[:, 1], values, xgrid=x, ygrid=y).ravel()
    ours = idw(lattice, values, np.stack([x.ravel(), y.ravel()], axis=1), power=2, nnear=8)
    assert np.array_equal(ours, expected) or np.abs(ours - expected).max() < 1e-12


def test_radar_pixels_without_a_measurement_are_left_out_of_the_reference() -> None:
    """Two pixels in one 2 km cell, one NaN (no echo measured): the cell holds the other
    pixel's rain, not half of it; a cell with only NaN pixels is NaN, not 0 mm/h."""
    import xarray as xr

    from substrates.adapters.runs.cml_inputs import LinkInputs, radar_reference
    from substrates.models.cml.grid import KM_PER_DEGREE, Grid

    grid = Grid((50.0, 8.0), 2.0, nx=2, ny=1)
    north = np.array([[0.5, 0.5], [1.5, 1.5]]) / KM_PER_DEGREE  # rows of the 1 × 2 pixels
    east = np.array([[0.5, 2.5], [1.0, 3.0]]) / (KM_PER_DEGREE * np.cos(np.radians(50.0)))
    times = np.array(["2021-01-01T00:05"], dtype="datetime64[ns]")
    rain = np.array([[[4.0, np.nan], [np.nan, np.nan]]])  # cell 0: 4 and NaN; cell 1: NaN
    areal = xr.Dataset(
        {"rain": (("time", "y", "x"), rain)},
        coords={
            "time": times,
            "latitudes": (("y", "x"), 50.0 + north),
            "longitudes": (("y", "x"), 8.0 + east),
        },
    )
    inputs = LinkInputs(times, np.zeros((1, 0, 2)), np.zeros((1, 0)), None, np.zeros((1, 0, 2)))
    field = radar_reference(areal, None, grid, inputs, "radar").field
    assert field[0, 0, 0] == 4.0 and np.isnan(field[0, 0, 1])


def test_kriging_with_two_links_at_one_midpoint_stays_within_the_data() -> None:
    """Coincident midpoints (pycomlink's network has them) with a nugget of 1e-22 (as
    the fit gave on 20 May) leave the kriging matrix singular to working precision, not
    exactly (its rows differ by the nugget): it must be solved by least squares, not
    blown up to 1e7 mm/h."""
    from substrates.models.cml.kriging import OrdinaryKriging, Variogram

    rng = np.random.default_rng(0)
    points = rng.uniform(0, 150, (60, 2))
    points[1] = points[0]
    values = rng.gamma(0.8, 1.0, 60)
    values[1] = values[0] + 2.0
    cells = rng.uniform(0, 150, (400, 2))
    kriging = OrdinaryKriging(points, cells, Variogram(0.22, 184.0, 1e-22))
    maps = kriging(values[None])
    assert np.isfinite(maps).all() and maps.max() < 2 * values.max()


def test_true_baseline_gives_every_method_the_true_rain_attenuation() -> None:
    """--true-baseline on a noise-free simulation with wet antennas: the attenuation the
    Bayesian methods read is the simulator's rain attenuation, wet-antenna loss removed, and
    the chain's path rain (IDW's input) the rain that attenuation implies."""
    from substrates.adapters.runs.cml_inputs import link_inputs
    from substrates.backends.cml.sim import CMLSimulatorBackend

    backend = create_backend(
        "cml.sim",
        {
            "links": 20,
            "duration_h": 3,
            "noise_db": 0,
            "rsl_step_db": 0,
            "drift_db_per_h": 0,
            "missing_fraction": 0,
            "wet_antenna_pastorek": [10.0, 0.5, 0.15],
            "seed": 3,
        },
    )
    assert isinstance(backend, CMLSimulatorBackend)
    start, end = np.datetime64("2020-06-01T02:00", "ns"), np.datetime64("2020-06-01T03:00", "ns")
    inputs = link_inputs(backend, start, end, 15, true_baseline=True)
    truth = backend.ground_truth(start, end + np.timedelta64(1, "h"))
    expected = _quarter_hour_means(truth["A_rain"], start, 4)
    assert truth["A_wet_antenna"].max() > 1.0  # there is a wet-antenna loss to remove
    np.testing.assert_allclose(inputs.attenuation_db, expected, atol=1e-9)


def test_corrected_inputs_are_the_chains_attenuation_that_its_rain_comes_from() -> None:
    """corrected=True (cml-reconstruct --wet-antenna-by chain): the Bayesian methods read
    the chain's attenuation after its Schleiss correction, step by step what IDW's rain
    comes from; without it, the attenuation above the baseline (the Schleiss term in it)."""
    from substrates.adapters.runs.cml_inputs import link_inputs

    backend = create_backend("cml.sim", {"links": 20, "duration_h": 3, "seed": 3})
    start, end = np.datetime64("2020-06-01T02:00", "ns"), np.datetime64("2020-06-01T03:00", "ns")
    corrected = link_inputs(backend, start, end, 15, corrected=True)
    above = link_inputs(backend, start, end, 15)
    expected = _quarter_hour_means(corrected.links["A"], start, 4)
    np.testing.assert_allclose(corrected.attenuation_db, expected, atol=1e-12)
    assert np.nanmax(above.attenuation_db - corrected.attenuation_db) > 0.5  # the Schleiss term


def _quarter_hour_means(values, start: np.datetime64, count: int) -> np.ndarray:
    """(count, links, sublinks) means of (cml_id, sublink_id, time) `values` over the
    15-minute steps (start + 15(k−1), start + 15k], NaN left out: what `link_inputs`
    should average, computed here on its own."""
    array = values.transpose("time", "cml_id", "sublink_id").values
    step = np.ceil((values["time"].values - start) / np.timedelta64(15, "m")).astype(int)
    return np.stack([np.nanmean(array[step == k], axis=0) for k in range(1, count + 1)])


def test_many_maps_equal_pycomlink_map_by_map_as_links_drop_out() -> None:
    """`InverseDistance` reuses neighbours per set of reporting links; each map is still
    pycomlink's, whichever links are missing from it (and a map with none is NaN)."""
    interpolator = pytest.importorskip("pycomlink.spatial.interpolator")
    from substrates.models.cml.reconstruct import InverseDistance

    rng = np.random.default_rng(7)
    x, y = np.meshgrid(np.linspace(0, 30, 20), np.linspace(0, 30, 15))
    grid = np.stack([x.ravel(), y.ravel()], axis=1)
    maps = rng.gamma(1.0, 2.0, size=(8, len(POINTS)))
    maps[2:5, :6] = np.nan  # three maps without the first six links
    maps[6, rng.choice(len(POINTS), 30, replace=False)] = np.nan
    maps[7] = np.nan
    ours = InverseDistance(POINTS, grid)(maps)
    for t, values in enumerate(maps[:7]):
        has = np.isfinite(values)
        theirs = interpolator.IdwKdtreeInterpolator(nnear=8, p=2)(
            POINTS[has, 0], POINTS[has, 1], values[has], xgrid=x, ygrid=y
        )
        assert np.allclose(ours[t], theirs.ravel(), rtol=1e-10)
    assert np.isnan(ours[7]).all()
