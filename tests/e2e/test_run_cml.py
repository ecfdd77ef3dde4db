"""`substrates run cml-reconstruct` as a user runs it: simulated and real links, bad input."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
import xarray as xr

from substrates import run as run_method
from substrates.adapters.methods import get_method
from substrates.adapters.methods.summary import undeclared

from .cli import only_run_folder, substrates

pytest.importorskip("pycomlink")


def _field_rmse(summary: dict) -> dict[str, float]:
    return {
        row["method"]: row["rmse_mm_h"] for row in summary["scores"] if row["target"] == "field"
    }


@pytest.mark.science
def test_on_synthetic_truth_the_bayesian_map_beats_idw_rmse_by_20_percent(tmp_path) -> None:
    summary = run_method(
        "cml-reconstruct",
        hardware="cml_sim",
        every=30,
        true_baseline=True,
        baseline="chain",
        seed=1,
        out=tmp_path,
        progress=False,
    ).summary
    rmse = _field_rmse(summary)
    assert summary["steps"] == 11
    assert rmse["bayes"] <= 0.8 * rmse["idw"], rmse
    assert rmse["bayes"] < rmse["kriging"], rmse


@pytest.mark.science
def test_from_the_links_own_data_the_bayesian_map_still_beats_idw(tmp_path) -> None:
    """The default run on the simulator's links, chain and all (GRF-HMC above the dry
    references with latent offsets, IDW on the chain's output): GRF-HMC 5% under IDW."""
    summary = run_method(
        "cml-reconstruct", hardware="cml_sim", every=30, seed=1, out=tmp_path, progress=False
    ).summary
    rmse = _field_rmse(summary)
    assert rmse["bayes"] < 0.95 * rmse["idw"], rmse


@pytest.fixture(scope="module")
def simulated_run(tmp_path_factory: pytest.TempPathFactory):
    """One simulated run with every kind of method (interpolation, kriging, HMC, a
    diffusion sampler), shared by the tests of what it writes: (stdout, run folder)."""
    cwd = tmp_path_factory.mktemp("cml")
    result = substrates(
        "run",
        "cml-reconstruct",
        "--start",
        "2020-06-01T02:00",
        "--end",
        "2020-06-01T02:20",
        "--every",
        "10",
        "--methods",
        "idw,kriging,bayes,pnp",
        "--iterations",
        "20",
        "--chains",
        "2",
        "--diffusion-steps",
        "4",
        "--draws",
        "2",
        cwd=cwd,
    )
    return result.stdout, only_run_folder(cwd / "runs")


def test_simulated_run_writes_maps_scores_and_fields(simulated_run) -> None:
    stdout, folder = simulated_run
    assert "field   bayes" in stdout and "path    chain" in stdout
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert undeclared(summary, get_method("cml-reconstruct").summary) == []
    assert {p.name for p in folder.iterdir()} == {
        "offsets.parquet",  # the latent baseline's dry-reference errors (the default)
        "results.parquet",
        "provenance.json",
        "summary.json",
        "maps.png",
        "fields.nc",
    }
    table = pq.read_table(folder / "results.parquet").to_pandas()
    assert len(table) == 2 * (4 + 5)  # per map: 4 field rows, 5 path rows (chain + methods)
    assert table["rmse_mm_h"].notna().all()
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and record["parameters"]["every_min"] == 10
    fields = xr.open_dataset(folder / "fields.nc")
    assert set(fields.data_vars) >= {"rain_bayes", "rain_bayes_std", "rain_idw", "rain_reference"}
    assert (fields["rain_bayes"].values >= 0).all()
    _is_cf(fields, every=np.timedelta64(10, "m"))


def test_fields_pass_the_ioos_cf_checker_strictly(simulated_run, tmp_path) -> None:
    """fields.nc with every kind of variable (maps, posterior spreads, prior levels, the
    reference, flags, bounds, grid mapping) through the IOOS compliance checker's CF-1.8
    suite at its strictest: no error, no warning."""
    pytest.importorskip("compliance_checker")
    from compliance_checker.runner import CheckSuite, ComplianceChecker

    _, folder = simulated_run
    report = tmp_path / "cf.json"
    CheckSuite.load_all_available_checkers()
    passed, errors = ComplianceChecker.run_checker(
        str(folder / "fields.nc"),
        ["cf:1.8"],
        0,
        "strict",
        output_filename=str(report),
        output_format="json",
    )
    found = json.loads(report.read_text())["cf:1.8"]
    messages = [
        m
        for group in ("high_priorities", "medium_priorities", "low_priorities")
        for check in found[group]
        for m in check["msgs"]
    ]
    assert passed and not errors and not messages, messages


def test_diffusion_samplers_write_means_spreads_and_their_ess(tmp_path) -> None:
    result = substrates(
        "run",
        "cml-reconstruct",
        "--start",
        "2020-06-01T02:00",
        "--end",
        "2020-06-01T02:20",
        "--every",
        "10",
        "--methods",
        "idw,dps,pnp,smc",
        "--baseline",
        "chain",
        "--diffusion-steps",
        "8",
        "--draws",
        "3",
        "--strength",
        "0.5",
        cwd=tmp_path,
    )
    assert all(f"field   {m}" in result.stdout for m in ("dps", "pnp", "smc"))
    folder = only_run_folder(tmp_path / "runs")
    fields = xr.open_dataset(folder / "fields.nc")
    names = [f"rain_{m}{s}" for m in ("dps", "pnp", "smc") for s in ("", "_std")]
    assert set(fields.data_vars) >= set(names)
    assert "rain_bayes" not in fields and "prior_wet_fraction" not in fields
    for name in names:
        assert np.isfinite(fields[name].values).all() and (fields[name].values >= 0).all()
    record = json.loads((folder / "provenance.json").read_text())
    assert record["parameters"]["diffusion"]["steps"] == 8
    assert record["parameters"]["diffusion"]["strength"] == 0.5
    assert 1 <= record["summary"]["smc_ess_min"] <= 3


def test_dry_steps_are_censored_below_3_db_unless_none_is_given(tmp_path) -> None:
    """With --baseline chain the default is the evaluated setting (chosen on the validation
    day), for GRF-HMC and the diffusion samplers alike; `none` reads the chain's dry steps
    as no rain. With the default latent baseline nothing is censored."""
    cases = ((), None), (("--baseline", "chain"), 3.0)
    cases += ((("--baseline", "chain", "--dry-limit-db", "none"), None),)
    for given, expected in cases:
        folder = tmp_path / "-".join(("run", *given))
        folder.mkdir()
        substrates(
            "run",
            "cml-reconstruct",
            "--start",
            "2020-06-01T02:00",
            "--end",
            "2020-06-01T02:10",
            "--methods",
            "idw",
            *given,
            cwd=folder,
        )
        record = json.loads((only_run_folder(folder / "runs") / "provenance.json").read_text())
        assert record["parameters"]["bayesian"]["dry_limit_db"] == expected
        assert record["parameters"]["diffusion"]["dry_limit_db"] == expected


def test_the_chains_threshold_and_wet_antenna_cap_are_options(tmp_path) -> None:
    """A lower wet/dry threshold and a smaller Schleiss cap let more light rain through
    the chain: the IDW map holds more rain, and provenance says which chain ran (the
    default nearby decision has too little history here, so the threshold decides)."""
    means = {}
    for given in ((), ("--wet-threshold-db", "0.5", "--waa-max-db", "1")):
        folder = tmp_path / str(len(given))
        folder.mkdir()
        substrates(
            "run",
            "cml-reconstruct",
            "--start",
            "2020-06-01T02:00",
            "--end",
            "2020-06-01T03:00",
            "--methods",
            "idw",
            *given,
            cwd=folder,
        )
        run = only_run_folder(folder / "runs")
        chain = json.loads((run / "provenance.json").read_text())["parameters"]["chain"]
        means[given] = float(xr.open_dataset(run / "fields.nc")["rain_idw"].mean())
        expected = (0.5, 1.0) if given else (0.8, 2.2)
        assert (chain["threshold_db"], chain["waa_max_db"]) == expected
        assert chain["wet_dry"] == "nearby"
    assert means[()] < means[("--wet-threshold-db", "0.5", "--waa-max-db", "1")]


def test_the_bayesian_wet_antenna_model_is_an_option(tmp_path) -> None:
    """Without the modelled wet-antenna loss (A_max 0) the same attenuation is all rain:
    the GRF-HMC map holds more of it; provenance records A_max for both samplers' settings."""
    means = {}
    for a_max in ("14", "0"):
        folder = tmp_path / a_max
        folder.mkdir()
        substrates(
            "run",
            "cml-reconstruct",
            "--start",
            "2020-06-01T02:00",
            "--end",
            "2020-06-01T02:40",
            "--every",
            "20",
            "--methods",
            "idw,bayes",
            "--iterations",
            "40",
            "--chains",
            "2",
            "--wet-antenna-max-db",
            a_max,
            cwd=folder,
        )
        run = only_run_folder(folder / "runs")
        parameters = json.loads((run / "provenance.json").read_text())["parameters"]
        assert parameters["bayesian"]["wet_antenna_max_db"] == float(a_max)
        assert parameters["diffusion"]["wet_antenna_max_db"] == float(a_max)
        means[a_max] = float(xr.open_dataset(run / "fields.nc")["rain_bayes"].mean())
    assert means["0"] > 1.1 * means["14"], means


def test_the_chain_can_take_the_wet_antennas_out_for_the_bayesian_methods(tmp_path) -> None:
    """--wet-antenna-by chain: the Bayesian methods read the Schleiss-corrected attenuation
    and model no wet antennas (A_max 0 in provenance, whatever --wet-antenna-max-db says);
    less attenuation than above the baseline, so less rain than with A_max 0 on it."""
    means = {}
    for by, a_max in (("model", "0"), ("chain", "14")):
        folder = tmp_path / by
        folder.mkdir()
        substrates(
            "run",
            "cml-reconstruct",
            "--start",
            "2020-06-01T02:00",
            "--end",
            "2020-06-01T02:40",
            "--every",
            "20",
            "--methods",
            "bayes",
            "--iterations",
            "40",
            "--chains",
            "2",
            "--wet-antenna-max-db",
            a_max,
            "--wet-antenna-by",
            by,
            "--baseline",
            "chain",
            cwd=folder,
        )
        run = only_run_folder(folder / "runs")
        parameters = json.loads((run / "provenance.json").read_text())["parameters"]
        assert parameters["wet_antenna_by"] == by
        assert parameters["bayesian"]["wet_antenna_max_db"] == 0.0
        means[by] = float(xr.open_dataset(run / "fields.nc")["rain_bayes"].mean())
    assert means["chain"] < 0.9 * means["model"], means


def test_a_missing_prior_file_is_one_line(tmp_path) -> None:
    result = substrates(
        "run",
        "cml-reconstruct",
        "--methods",
        "pnp",
        "--prior",
        "nowhere.pt",
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode != 0 and "nowhere.pt" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "runs").exists()


def _is_cf(fields: xr.Dataset, every: np.timedelta64) -> None:
    """CF-1.8 as a reader relies on it: lat/lon axes that place each cell where the km
    frame does, standard names and UDUNITS units, time bounds one step wide."""
    from substrates.models.cml.grid import to_km

    assert fields.attrs["Conventions"] == "CF-1.8"
    assert fields["rain_bayes"].dims == ("time", "lat", "lon")
    for name in ("rain_bayes", "rain_idw", "rain_reference"):
        assert fields[name].attrs["standard_name"] == "lwe_precipitation_rate"
        assert fields[name].attrs["units"] == "mm h-1"
    assert fields["rain_bayes_std"].attrs["standard_name"].endswith(" standard_error")
    assert fields["lat"].attrs["units"] == "degrees_north" and fields["lon"].attrs["axis"] == "X"
    origin = (fields.attrs["origin_lat"], fields.attrs["origin_lon"])
    east, north = to_km(fields["lat"].values[:, None], fields["lon"].values[None, :], origin)
    assert np.allclose(east, fields["x_km"].values[None, :], atol=1e-9)
    assert np.allclose(north, fields["y_km"].values[:, None], atol=1e-9)
    bounds = fields[fields["time"].attrs["bounds"]].values
    assert (bounds[:, 1] == fields["time"].values).all() and (np.diff(bounds) == every).all()
    assert fields["crs"].attrs["grid_mapping_name"] == "latitude_longitude"


@pytest.mark.science
def test_real_links_are_scored_against_pycomlinks_radar_references(tmp_path) -> None:
    run = run_method(
        "cml-reconstruct",
        hardware="cml_opensense",
        start="2018-05-13T19:00",
        end="2018-05-13T19:30",
        methods=["idw", "bayes"],
        cell_km=4.0,
        chains=2,
        iterations=40,
        out=tmp_path,
        progress=False,
    )
    folder, summary = run.folder, run.summary
    table = run.results.to_pandas()
    assert len(table["time"].unique()) == 6
    chain = table[(table.target == "path") & (table.method == "chain")]
    assert chain["pearson_r"].mean() > 0.5  # the links see the rain the radar sees
    field = table[table.target == "field"]
    assert field["rmse_mm_h"].notna().all() and field["reference_mean_mm_h"].gt(0).all()
    assert "radar" in folder.read_json("provenance.json")["parameters"]["reference"]
    assert summary["steps"] == 6


def _opensense_file(tmp_path, rain: bool = False, **change) -> str:
    """A small OpenSense file written with xarray, optionally broken by `change`; with
    `rain`, links 0 and 1 lose 6 dB from 02:00 to 02:40."""
    data = _opensense_dataset(rain, **change)
    path = tmp_path / "links.nc"
    data.to_netcdf(path)
    return str(path)


def _opensense_dataset(rain: bool = False, **change) -> xr.Dataset:
    times = np.arange("2021-01-01T00:00", "2021-01-01T04:00", dtype="datetime64[m]")
    rng = np.random.default_rng(0)
    links = 4
    rsl = -50 + rng.normal(0, 0.2, (links, 2, 240))
    if rain:
        rsl[:2, :, 120:160] -= 6.0
    data = xr.Dataset(
        {
            "rsl": (("cml_id", "sublink_id", "time"), rsl),
            "tsl": (("cml_id", "sublink_id", "time"), np.full((links, 2, 240), 10.0)),
        },
        coords={
            "cml_id": [f"l{i}" for i in range(links)],
            "sublink_id": ["a", "b"],
            "time": times.astype("datetime64[ns]"),
            "frequency": (("cml_id", "sublink_id"), np.full((links, 2), 23.0), {"units": "GHz"}),
            "polarization": (("cml_id", "sublink_id"), np.full((links, 2), "v")),
            "length": ("cml_id", np.full(links, 3.0)),
            "site_0_lat": ("cml_id", 50 + np.arange(links) * 0.01),
            "site_0_lon": ("cml_id", np.full(links, 8.0)),
            "site_1_lat": ("cml_id", 50 + np.arange(links) * 0.01 + 0.02),
            "site_1_lon": ("cml_id", np.full(links, 8.03)),
        },
    )
    for name, value in change.items():
        if value is None:
            data = data.drop_vars(name)
        else:
            data = data.assign_coords({name: (data[name].dims, value, data[name].attrs)})
    return data


def _as_the_convention_specifies(data: xr.Dataset) -> xr.Dataset:
    """The same links as netCDF_CML.adoc's table has them: time in integer seconds since
    1970, length in m, frequency in MHz, `polarisation` spelt out, units attributes."""
    seconds = data["time"].values.astype("datetime64[s]").astype(np.int64)
    spelled = np.where(data["polarization"].values == "v", "vertical", "horizontal")
    exact = data.drop_vars(["polarization", "time"]).assign_coords(
        time=("time", seconds, {"units": "seconds since 1970-01-01 00:00:00 UTC"}),
        polarisation=(("cml_id", "sublink_id"), spelled),
        length=("cml_id", data["length"].values * 1000.0, {"units": "m"}),
        frequency=(("cml_id", "sublink_id"), data["frequency"].values * 1000.0, {"units": "MHz"}),
    )
    for name in ("rsl", "tsl"):
        exact[name].attrs["units"] = "dBm"
    return exact


def _idw_fields(tmp_path, data: xr.Dataset, name: str) -> tuple[np.ndarray, dict]:
    """IDW maps of 02:00–02:40 from `data` written to `name`, and the run's provenance."""
    folder = tmp_path / name
    folder.mkdir()
    data.to_netcdf(folder / "links.nc")
    substrates(
        "run",
        "cml-reconstruct",
        "--source",
        "cml_opensense",
        "--data",
        "links.nc",
        "--start",
        "2021-01-01T02:00",
        "--end",
        "2021-01-01T02:40",
        "--methods",
        "idw",
        cwd=folder,
    )
    run = only_run_folder(folder / "runs")
    with xr.open_dataset(run / "fields.nc") as fields:
        values = fields["rain_idw"].values
    return values, json.loads((run / "provenance.json").read_text())


def test_a_file_as_the_convention_specifies_gives_the_same_rain(tmp_path) -> None:
    """length in metres, MHz, `polarisation`, rsl in mW or a constant tsl left out: the
    same rain as the file in km, GHz and dBm (it was 0.0 mm/h with length in metres)."""
    ours = _opensense_dataset(rain=True)
    expected, _ = _idw_fields(tmp_path, ours, "ours")
    assert np.nanmean(expected) > 0.5
    exact, record = _idw_fields(tmp_path, _as_the_convention_specifies(ours), "exact")
    assert np.allclose(exact, expected, equal_nan=True)
    assert record["cleaning"]["length_unit"] == "m"
    linear = ours.copy()
    linear["rsl"] = (10 ** (ours["rsl"] / 10)).assign_attrs(units="mW")
    milliwatts, record = _idw_fields(tmp_path, linear.drop_vars("tsl"), "linear")
    assert np.allclose(milliwatts, expected, equal_nan=True)
    assert record["cleaning"]["levels_converted_to_dbm_from"] == {"rsl": "mW"}
    assert record["cleaning"]["constant_level"] == "tsl"


def test_a_link_without_any_rsl_is_skipped_and_counted(tmp_path) -> None:
    data = _opensense_dataset(rain=True)
    data["rsl"][3] = np.nan
    _, record = _idw_fields(tmp_path, data, "gap")
    assert record["cleaning"]["links_without_data"] == ["l3"]


def test_a_users_file_runs_without_a_reference(tmp_path) -> None:
    path = _opensense_file(tmp_path)
    result = substrates(
        "run",
        "cml-reconstruct",
        "--source",
        "cml_opensense",
        "--data",
        path,
        "--start",
        "2021-01-01T02:00",
        "--end",
        "2021-01-01T02:30",
        "--methods",
        "idw,kriging",
        cwd=tmp_path,
    )
    assert "field   idw" in result.stdout and "--" in result.stdout  # no reference: no scores
    folder = only_run_folder(tmp_path / "runs")
    with xr.open_dataset(folder / "fields.nc") as fields:
        assert "reference" not in fields.attrs and "rain_reference" not in fields
    assert json.loads((folder / "provenance.json").read_text())["parameters"]["reference"] == "none"


@pytest.mark.parametrize(
    ("change", "extra", "message"),
    [
        ({"rsl": None, "tsl": None}, (), "missing rsl, tsl"),
        ({"rsl": np.full((4, 2, 240), np.nan)}, (), "no link has data (an rsl value)"),
        (
            {},
            ("--start", "2029-12-31T22:00", "--end", "2030-01-01T02:00"),
            "the data hold 2021-01-01T00:00:00",
        ),
        ({"polarization": np.full((4, 2), "diagonal")}, (), "unknown polarization"),
        ({"length": np.array([3.0, 0.0, 3.0, 3.0])}, (), "zero or missing length"),
        ({"frequency": np.full((4, 2), 23000.0)}, (), "no microwave-link band"),  # MHz as GHz
        ({}, ("--every", "0"), "--every"),
        ({}, ("--start", "2021-01-01T03:00", "--end", "2021-01-01T02:00"), "not after"),
        (
            {},
            ("--start", "yesterday", "--end", "2021-01-01T02:00"),
            "--start: 'yesterday' is not an ISO 8601 time",
        ),
        ({}, ("--methods", "idw,magic"), "unknown ['magic']"),
        ({}, ("--device", "cuda"), "no CUDA device"),
        (
            {},
            ("--wet-antenna-by", "chain"),
            "--baseline: latent (the default) reads trsl above the dry reference, with no "
            "chain correction: add --baseline chain",
        ),
        (
            {},
            ("--baseline", "latent", "--true-baseline"),
            "--baseline: latent (the default) models the dry level that --true-baseline gives "
            "exactly: add --baseline chain",
        ),
        (
            {},
            ("--baseline", "chain", "--antenna-sd-db", "4"),
            "--antenna-sd-db: a latent wet-antenna A_max is sampled with --baseline latent",
        ),
        (
            {},
            ("--methods", "pnp,smc"),
            "--baseline: latent offsets (the default) are sampled by bayes and pnp, not by "
            "smc: leave those out of --methods or add --baseline chain",
        ),
    ],
)
def test_bad_input_is_refused_with_exit_code_2(tmp_path, change, extra, message) -> None:
    path = _opensense_file(tmp_path, **change)
    args = ["--start", "2021-01-01T02:00", "--end", "2021-01-01T02:30", *extra]
    result = substrates(
        "run",
        "cml-reconstruct",
        "--source",
        "cml_opensense",
        "--data",
        path,
        *args,
        cwd=tmp_path,
        env={"CUDA_VISIBLE_DEVICES": ""},
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert not (tmp_path / "runs").exists()  # nothing half-written


def test_data_needs_a_real_data_source(tmp_path) -> None:
    (tmp_path / "x.nc").write_bytes(b"")
    result = substrates("run", "cml-reconstruct", "--data", "x.nc", cwd=tmp_path, check=False)
    assert result.returncode == 2
    assert "--data: needs a hardware config whose backend has a 'path' option" in result.stderr
    result = substrates("run", "cml-reconstruct", "--data", "y.nc", cwd=tmp_path, check=False)
    assert result.returncode == 2 and "--data: y.nc: no such file or folder" in result.stderr


def test_kriging_with_the_climatological_variogram(tmp_path) -> None:
    """RAINLINK's variogram for the day and step (pycomlink's clim_var_param), one for every
    map, recorded in provenance."""
    from pycomlink.spatial.interpolator import clim_var_param

    data = _opensense_dataset(rain=True)
    data.to_netcdf(tmp_path / "links.nc")
    substrates(
        "run",
        "cml-reconstruct",
        "--source",
        "cml_opensense",
        "--data",
        "links.nc",
        "--start",
        "2021-01-01T02:00",
        "--end",
        "2021-01-01T02:40",
        "--methods",
        "kriging",
        "--every",
        "10",
        "--variogram",
        "climatological",
        cwd=tmp_path,
    )
    run = only_run_folder(tmp_path / "runs")
    used = json.loads((run / "provenance.json").read_text())["parameters"]["variogram"]
    expected = clim_var_param(date_str="20210101", time_scale_hours=10 / 60)
    assert used["range_km"] == pytest.approx(float(expected["range"]))
    assert used["psill"] + used["nugget"] == pytest.approx(float(expected["sill"]))
    with xr.open_dataset(run / "fields.nc") as fields:
        maps = fields["rain_kriging"].values
    assert np.isfinite(maps).all() and maps.max() > 0.5 and maps.min() >= 0


@pytest.mark.science  # 40 s: every potential of the latent samplers runs the whole decoder
def test_the_exact_latent_samplers_map_rain_and_report_their_diagnostics(tmp_path) -> None:
    substrates(
        "run",
        "cml-reconstruct",
        "--start",
        "2020-06-01T02:00",
        "--end",
        "2020-06-01T02:20",
        "--every",
        "10",
        "--methods",
        "tempered,exchange",
        "--baseline",
        "chain",
        "--diffusion-steps",
        "8",
        "--draws",
        "3",
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "runs")
    fields = xr.open_dataset(folder / "fields.nc")
    for name in ("rain_tempered", "rain_exchange", "rain_tempered_std", "rain_exchange_std"):
        assert np.isfinite(fields[name].values).all() and (fields[name].values >= 0).all()
    summary = json.loads((folder / "provenance.json").read_text())["summary"]
    assert summary["tempered_ess_min"] == 1.5  # each reweighting keeps half of 3 particles
    assert 1 <= summary["exchange_ess_min"] <= 3
    swaps = summary["exchange_swap_acceptance"]
    assert len(swaps) == 7 and all(0 < a < 1 for a in swaps)


@pytest.mark.science  # 21 s: 25 h of real links through the chain, twice
def test_the_nearby_wet_dry_decision_changes_the_real_links_maps(tmp_path) -> None:
    """The default chain on real links is RAINLINK's nearby decision (24 hours of history
    read before --start): provenance names it, and it changes which links carry rain into
    the IDW maps against --wet-dry std."""
    maps, chains = {}, {}
    for wet_dry in ("std", "nearby"):
        chosen = {"wet_dry": "std"} if wet_dry == "std" else {}  # nearby: the default
        run = run_method(
            "cml-reconstruct",
            hardware="cml_opensense",
            start="2018-05-14T14:00",
            end="2018-05-14T15:00",
            methods=["idw"],
            out=tmp_path / wet_dry,
            progress=False,
            **chosen,
        )
        chains[wet_dry] = run.folder.read_json("provenance.json")["parameters"]["chain"]
        with xr.open_dataset(run.path / "fields.nc") as fields:
            maps[wet_dry] = fields["rain_idw"].values
    assert chains["std"]["wet_dry"] == "std" and chains["nearby"]["wet_dry"] == "nearby"
    assert np.isfinite(maps["nearby"]).mean() > 0.5
    assert np.nanmean(np.abs(maps["nearby"] - maps["std"])) > 0.01  # mm/h


def test_a_simulator_can_be_reconstructed_on_a_coarser_grid_of_its_own(tmp_path) -> None:
    """--cell-km 1 on the 0.5 km simulator: the maps are 32 × 32 and the reference is the
    truth's 2 × 2 block means (computed here by reshaping); a cell finer than the
    simulator's is refused in one line, before any run folder exists."""
    from substrates.backends.registry import create_backend

    window = {"start": "2020-06-01T02:00", "end": "2020-06-01T02:20", "every": 10}
    run = run_method(
        "cml-reconstruct",
        hardware="cml_sim",
        methods=["idw"],
        cell_km=1.0,
        out=tmp_path / "runs",
        progress=False,
        **window,
    )
    fields = xr.load_dataset(run.path / "fields.nc")
    assert fields["rain_idw"].shape == (2, 32, 32)
    assert "averaged into 1 km" in fields["rain_reference"].attrs["long_name"]
    sim = create_backend("cml.sim", {"seed": 0, "links": 100, "duration_h": 6})
    truth = sim.ground_truth("2020-06-01T02:01", "2020-06-01T02:21")["rain"].values  # (t − 10, t]
    per_map = truth.reshape(2, 10, 64, 64).mean(axis=1)
    blocks = per_map.reshape(2, 32, 2, 32, 2).mean(axis=(2, 4))
    assert np.allclose(fields["rain_reference"].values, blocks, rtol=1e-6)
    (tmp_path / "fine").mkdir()
    result = substrates(
        "run",
        "cml-reconstruct",
        "--methods",
        "idw",
        "--cell-km",
        "0.25",
        cwd=tmp_path / "fine",
        check=False,
    )
    assert result.returncode == 2
    assert "--cell-km: 0.25 km is finer than the simulator's 0.5 km cells" in result.stderr
    assert not (tmp_path / "fine" / "runs").exists()


@pytest.mark.science  # 6 s alone: 3 maps of HMC with the Gibbs step, and of PnP with it
def test_latent_offsets_find_each_links_dry_reference_error(tmp_path) -> None:
    """--baseline latent (the default) on the simulator: bayes and pnp read trsl above each
    sublink's dry reference (median trsl while the chain called it dry) and sample the
    reference's error with the field. Each method's posterior means in offsets.parquet
    follow the true error — the simulator's mean dry baseline over the window less that
    reference (the truth scores here, it feeds nothing) — and cut it to under half
    (measured: correlation 0.95 and 0.94, rms 1.78 dB to 0.83 and 0.78); provenance says
    what ran."""
    from substrates.adapters.runs.cml_inputs import dry_reference, link_inputs
    from substrates.backends.registry import create_backend

    start, end = "2020-06-01T02:00", "2020-06-01T03:00"
    run = run_method(
        "cml-reconstruct",
        hardware="cml_sim",
        start=start,
        end=end,
        every=20,
        methods=["bayes", "pnp"],
        iterations=40,
        chains=2,
        out=tmp_path / "runs",
        progress=False,
    )
    parameters = run.folder.read_json("provenance.json")["parameters"]
    assert parameters["baseline"] == "latent"
    assert parameters["bayesian"]["offset_sd_db"] == 0.5
    assert parameters["bayesian"]["dry_limit_db"] is None
    assert parameters["diffusion"]["offset_sd_db"] == 0.5
    assert parameters["diffusion"]["dry_limit_db"] is None
    table = pq.read_table(run.path / "offsets.parquet").to_pandas()
    sim = create_backend("cml.sim", {"seed": 0, "links": 100, "duration_h": 6})
    begin, finish = np.datetime64(start, "ns"), np.datetime64(end, "ns")
    processed = link_inputs(sim, begin, finish, 20).links
    reference = dry_reference(processed)
    truth = sim.ground_truth("2020-06-01T02:01", "2020-06-01T03:01")["baseline"]
    error = (truth.mean("time") - reference).transpose("cml_id", "sublink_id")
    ids = error["cml_id"].values.astype(str), error["sublink_id"].values.astype(str)
    assert set(table["method"]) == {"bayes", "pnp"}
    for method, rows in table.groupby("method"):
        found = rows.pivot(index="cml_id", columns="sublink_id", values="offset_db")
        found = found.loc[ids].values
        assert np.isfinite(found).mean() > 0.9
        kept = np.isfinite(found)
        assert np.corrcoef(found[kept], error.values[kept])[0, 1] > 0.8
        rms = np.sqrt(np.mean((found - error.values)[kept] ** 2))
        assert rms < 0.5 * np.sqrt(np.mean(error.values[kept] ** 2))
        median = run.summary[f"{method}_offset_abs_median_db"]
        assert np.isclose(median, np.nanmedian(np.abs(rows["offset_db"])))


def test_a_latent_wet_antenna_per_sublink_is_sampled_and_written(tmp_path) -> None:
    """--antenna-sd-db: GRF-HMC and PnP sample each sublink's wet-antenna A_max with the
    offsets; offsets.parquet holds its posterior mean per method (never below 0, not all
    at the prior's 14 dB), the summary its median, provenance the prior SD."""
    run = run_method(
        "cml-reconstruct",
        hardware="cml_sim",
        start="2020-06-01T02:00",
        end="2020-06-01T02:40",
        every=20,
        methods=["bayes", "pnp"],
        iterations=20,
        chains=2,
        diffusion_steps=4,
        draws=2,
        antenna_sd_db=4.0,
        out=tmp_path / "runs",
        progress=False,
    )
    parameters = run.folder.read_json("provenance.json")["parameters"]
    assert parameters["bayesian"]["antenna_sd_db"] == parameters["diffusion"]["antenna_sd_db"] == 4
    table = pq.read_table(run.path / "offsets.parquet").to_pandas()
    for method in ("bayes", "pnp"):
        found = table[table.method == method]["wet_antenna_max_db"].dropna()
        assert len(found) > 10 and (found >= 0).all() and found.std() > 0.1, method
        assert run.summary[f"{method}_wet_antenna_median_db"] == pytest.approx(found.median())
