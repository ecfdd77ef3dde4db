"""The OpenSense data layer: files written by xarray/netCDF4, validated and cleaned by us."""

from __future__ import annotations

import re

import numpy as np
import pyarrow.parquet as pq
import pytest
import xarray as xr

from substrates.datasets.cml.opensense import CMLDataError, open_dataset, to_parquet, validate


def opensense(links: int = 3, times: int = 10, **overrides) -> xr.Dataset:
    """Links around Gothenburg whose far ends lie `length` km from their near ends."""
    rng = np.random.default_rng(0)
    length = np.linspace(1.0, 9.0, links)
    lat0, lon0 = rng.uniform(57, 58, links), rng.uniform(11, 12, links)
    bearing = 2 * np.pi * rng.uniform(0, 1, links)
    rng.uniform(size=links)  # keeps the draws below as they were
    lat1 = lat0 + np.degrees(length * np.cos(bearing) / 6371.0)
    lon1 = lon0 + np.degrees(length * np.sin(bearing) / (6371.0 * np.cos(np.radians(lat0))))
    coords = {
        "cml_id": [f"c{i}" for i in range(links)],
        "sublink_id": ["s0", "s1"],
        "time": np.arange(times).astype("datetime64[m]").astype("datetime64[ns]"),
        "frequency": (("cml_id", "sublink_id"), np.full((links, 2), 23.0)),
        "polarization": (("cml_id", "sublink_id"), np.full((links, 2), "v")),
        "length": ("cml_id", length),
        "site_0_lat": ("cml_id", lat0),
        "site_0_lon": ("cml_id", lon0),
        "site_1_lat": ("cml_id", lat1),
        "site_1_lon": ("cml_id", lon1),
    }
    shape = (links, 2, times)
    data = {
        "rsl": (("cml_id", "sublink_id", "time"), rng.normal(-45, 2, shape)),
        "tsl": (("cml_id", "sublink_id", "time"), np.full(shape, 10.0)),
    }
    dataset = xr.Dataset(data, coords=coords)
    for name, value in overrides.items():
        dataset = dataset.assign_coords({name: (dataset[name].dims, value)})
    return dataset


def write(dataset: xr.Dataset, tmp_path) -> str:
    path = tmp_path / "cml.nc"
    dataset.to_netcdf(path, engine="netcdf4")
    return str(path)


def test_valid_file_round_trips(tmp_path) -> None:
    dataset, cleaning = open_dataset(write(opensense(), tmp_path))
    assert dict(dataset.sizes) == {"cml_id": 3, "sublink_id": 2, "time": 10}
    assert cleaning.to_dict()["frequency_converted_from"] is None
    assert dataset["frequency"].attrs["units"] == "GHz"


def test_missing_variables_are_named(tmp_path) -> None:
    with pytest.raises(CMLDataError, match=r"cml\.nc: missing rsl, tsl, frequency"):
        open_dataset(write(opensense().drop_vars(["rsl", "tsl", "frequency"]), tmp_path))


def convention_exact(links: int = 3, times: int = 10) -> xr.Dataset:
    """`opensense()` as the convention's table (netCDF_CML.adoc) specifies the file: time
    in integer seconds since 1970, length in m, frequency in MHz, `polarisation` spelt
    out, units and long names as attributes."""
    base = opensense(links, times)
    seconds = base["time"].values.astype("datetime64[s]").astype(np.int64)
    spelled = np.where(base["polarization"].values == "v", "vertical", "horizontal")
    exact = base.drop_vars(["polarization", "time"]).assign_coords(
        time=(
            "time",
            seconds,
            {"units": "seconds since 1970-01-01 00:00:00 UTC", "long_name": "time_utc"},
        ),
        polarisation=(("cml_id", "sublink_id"), spelled),
        length=("cml_id", base["length"].values * 1000.0, {"units": "m"}),
        frequency=(
            ("cml_id", "sublink_id"),
            base["frequency"].values * 1000.0,
            {"units": "MHz", "long_name": "sublink_frequency"},
        ),
    )
    for name in ("rsl", "tsl"):
        exact[name].attrs.update(units="dBm")
    return exact


def test_a_file_written_as_the_convention_specifies_reads_as_ours(tmp_path) -> None:
    path = tmp_path / "exact.nc"
    convention_exact().to_netcdf(path, engine="netcdf4")
    ours, _ = open_dataset(write(opensense(), tmp_path))
    theirs, cleaning = open_dataset(path)
    for name in ("length", "frequency", "site_1_lat"):
        assert np.allclose(theirs[name].values, ours[name].values)
    assert (theirs["polarization"].values == ours["polarization"].values).all()
    assert (theirs["time"].values == ours["time"].values).all()
    assert cleaning.length_unit == "m" and cleaning.frequency_converted_from == "MHz"
    assert cleaning.renamed == {"polarisation": "polarization"}
    assert cleaning.polarization_spellings == 6 and cleaning.levels_assumed_dbm == []


def test_length_without_units_is_read_in_the_unit_the_coordinates_support() -> None:
    metres = opensense()
    metres = metres.assign_coords(length=("cml_id", metres["length"].values * 1000.0))
    dataset, cleaning = validate(metres, source="test")
    assert np.allclose(dataset["length"].values, opensense()["length"].values)
    assert cleaning.length_unit == "m (inferred from the coordinates)"
    dataset, cleaning = validate(opensense().drop_vars("length"), source="test")
    assert np.allclose(dataset["length"].values, opensense()["length"].values, rtol=1e-3)
    assert cleaning.length_unit == "computed from the coordinates"


def test_a_declared_length_unit_is_applied_and_checked_against_the_sites() -> None:
    wrong = opensense()
    wrong["length"].attrs["units"] = "m"  # km values declared as metres: 1000x too short
    with pytest.raises(CMLDataError, match="coordinates contradict their length"):
        validate(wrong, source="test")
    odd = opensense()
    odd["length"].attrs["units"] = "miles"
    with pytest.raises(CMLDataError, match="length units 'miles'; allowed: m, km"):
        validate(odd, source="test")


@pytest.mark.parametrize(
    ("unit", "convert"),
    [
        ("mW", lambda dbm: 10 ** (dbm / 10)),
        ("W", lambda dbm: 10 ** (dbm / 10) / 1e3),
        ("dBW", lambda dbm: dbm - 30.0),
        ("dBm", lambda dbm: dbm),
    ],
)
def test_levels_in_linear_or_dbw_units_are_converted_to_dbm(unit, convert) -> None:
    from substrates.datasets.cml.opensense import mask_fill_values

    base = opensense()
    other = base.copy()
    for name in ("rsl", "tsl"):
        other[name] = convert(base[name]).assign_attrs(units=unit)
    dataset, cleaning = validate(other, source="test")
    loaded = mask_fill_values(dataset.load(), cleaning)
    assert np.allclose(loaded["rsl"].values, base["rsl"].values, atol=1e-9)
    assert loaded["rsl"].attrs["units"] == "dBm"
    assert cleaning.levels_converted_from == ({} if unit == "dBm" else {"rsl": unit, "tsl": unit})


def test_a_level_in_no_power_unit_is_refused_and_zero_milliwatts_are_counted() -> None:
    from substrates.datasets.cml.opensense import mask_fill_values

    volts = opensense()
    volts["rsl"].attrs["units"] = "V"
    with pytest.raises(CMLDataError, match="rsl units 'V'; allowed: dBm, dBW, mW, W"):
        validate(volts, source="test")
    linear = opensense()
    linear["rsl"] = (10 ** (linear["rsl"] / 10)).assign_attrs(units="mW")
    linear["rsl"][0, 0, :3] = 0.0
    dataset, cleaning = validate(linear, source="test")
    loaded = mask_fill_values(dataset.load(), cleaning)
    assert cleaning.levels_not_positive == {"rsl": 3} and np.isnan(loaded["rsl"][0, 0, :3]).all()


def test_the_constant_level_may_be_left_out_as_the_convention_allows() -> None:
    dataset, cleaning = validate(opensense().drop_vars("tsl"), source="test")
    assert cleaning.constant_level == "tsl" and float(np.abs(dataset["tsl"]).max()) == 0.0
    assert dataset["tsl"].dims == dataset["rsl"].dims


def test_both_polarisation_spellings_at_once_are_refused() -> None:
    both = opensense().assign_coords(polarisation=opensense()["polarization"])
    with pytest.raises(CMLDataError, match="both polarisation and polarization"):
        validate(both, source="test")


@pytest.mark.parametrize(("scale", "unit"), [(1e3, "MHz"), (1e9, "Hz")])
def test_frequencies_in_mhz_or_hz_are_converted_and_counted(scale: float, unit: str) -> None:
    base = opensense()
    dataset, cleaning = validate(
        opensense(frequency=base["frequency"].values * scale), source="test"
    )
    assert np.allclose(dataset["frequency"].values, 23.0)
    assert cleaning.frequency_converted_from == unit


def test_frequency_in_no_band_is_refused() -> None:
    with pytest.raises(CMLDataError, match="no microwave-link band"):
        validate(opensense(frequency=np.full((3, 2), 2e7)), source="test")


def test_declared_units_are_trusted_and_checked() -> None:
    dataset = opensense(frequency=np.full((3, 2), 23000.0))
    dataset["frequency"].attrs["units"] = "MHz"
    cleaned, _ = validate(dataset, source="test")
    assert np.allclose(cleaned["frequency"].values, 23.0)
    dataset["frequency"].attrs["units"] = "kHz"
    with pytest.raises(CMLDataError, match="frequency units 'kHz'"):
        validate(dataset, source="test")


def test_unknown_polarization_is_refused() -> None:
    with pytest.raises(CMLDataError, match=r"unknown polarization \['x'\]"):
        validate(opensense(polarization=np.full((3, 2), "x")), source="test")


def test_spellings_are_normalised_and_counted() -> None:
    spelled = np.array([["H", "vertical"], ["Horizontal", "v"], ["h", "V"]])
    dataset, cleaning = validate(opensense(polarization=spelled), source="test")
    assert dataset["polarization"].values.tolist() == [["h", "v"], ["h", "v"], ["h", "v"]]
    assert cleaning.polarization_spellings == 4


def test_zero_length_links_are_refused() -> None:
    with pytest.raises(CMLDataError, match="zero or missing length: cml_id c0"):
        validate(opensense(length=np.array([0.0, 2.0, 3.0])), source="test")


def test_pycomlink_layout_is_renamed() -> None:
    old = opensense().rename(
        {
            "sublink_id": "channel_id",
            "site_0_lat": "site_a_latitude",
            "site_1_lon": "site_b_longitude",
        }
    )
    dataset, cleaning = validate(old, source="test")
    assert "sublink_id" in dataset.dims and "site_0_lat" in dataset.coords
    assert cleaning.renamed["channel_id"] == "sublink_id"


def test_parquet_export(tmp_path) -> None:
    dataset, _ = validate(opensense(), source="test")
    to_parquet(dataset, tmp_path / "cml.parquet")
    table = pq.read_table(tmp_path / "cml.parquet")
    assert table.num_rows == 3 * 2 * 10
    assert {"cml_id", "sublink_id", "time", "rsl", "tsl", "frequency", "length"} <= set(
        table.column_names
    )
    assert table.schema.metadata[b"frequency"] == b"GHz"


def test_check_names_a_missing_data_file(tmp_path, capsys) -> None:
    from substrates.cli import main

    config = tmp_path / "cml.yaml"
    config.write_text(
        f"substrate: cml\nbackend: cml.opensense\noptions:\n  path: {tmp_path / 'none.nc'}\n"
    )
    assert main(["check", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("none.nc: no such file") and len(err.splitlines()) == 1


def _openmrg(tmp_path, drop_direction: bool = False) -> tuple[xr.Dataset, str]:
    """OpenMRG's published layout written by xarray and pandas: cml/cml.nc over (sublink,
    time) and cml/cml_metadata.csv, sublinks numbered out of order."""
    import pandas as pd

    reference = opensense(links=3, times=12)
    rows, series = [], []
    sublink = 1000
    for link in range(3):
        for d, direction in enumerate(("A", "B")):
            if drop_direction and link == 1 and direction == "B":
                continue
            sublink += 7
            ends = ("site_0_lat", "site_0_lon", "site_1_lat", "site_1_lon")
            near_lat, near_lon, far_lat, far_lon = (float(reference[k][link]) for k in ends)
            rows.append(
                {
                    "Sublink": sublink,
                    "Link": 10 + link,
                    "Direction": direction,
                    "Frequency_GHz": 23.0 + d * 0.5,
                    "Polarization": "Vertical",
                    "Length_km": float(reference["length"][link]),
                    "NearLatitude_DecDeg": near_lat,
                    "NearLongitude_DecDeg": near_lon,
                    "FarLatitude_DecDeg": far_lat,
                    "FarLongitude_DecDeg": far_lon,
                }
            )
            series.append(
                (sublink, reference["rsl"][link, d].values, reference["tsl"][link, d].values)
            )
    folder = tmp_path / "OpenMRG" / "cml"
    folder.mkdir(parents=True)
    order = np.random.default_rng(1).permutation(len(series))
    nc = xr.Dataset(
        {
            "rsl": (("sublink", "time"), np.stack([series[i][1] for i in order])),
            "tsl": (("sublink", "time"), np.stack([series[i][2] for i in order])),
        },
        coords={"sublink": [series[i][0] for i in order], "time": reference["time"].values},
    )
    nc.to_netcdf(folder / "cml.nc")
    pd.DataFrame(rows).to_csv(folder / "cml_metadata.csv", index=False)
    return reference, str(tmp_path / "OpenMRG")


def test_openmrg_layout_reads_into_the_opensense_convention(tmp_path) -> None:
    reference, folder = _openmrg(tmp_path)
    dataset, cleaning = open_dataset(folder)
    assert dict(dataset.sizes) == {"cml_id": 3, "sublink_id": 2, "time": 12}
    assert list(dataset["cml_id"].values) == ["10", "11", "12"]
    assert list(dataset["sublink_id"].values) == ["A", "B"]
    assert np.array_equal(dataset["rsl"].values, reference["rsl"].values)
    assert np.array_equal(dataset["tsl"].values, reference["tsl"].values)
    assert np.allclose(dataset["frequency"].values, [[23.0, 23.5]] * 3)
    assert (dataset["polarization"].values == "v").all()
    assert cleaning.polarization_spellings == 6
    for name in ("length", "site_0_lat", "site_1_lon"):
        assert np.allclose(dataset[name].values, reference[name].values)


def test_openmrg_links_missing_a_direction_are_named(tmp_path) -> None:
    _, folder = _openmrg(tmp_path, drop_direction=True)
    with pytest.raises(CMLDataError, match="links 11 lack a direction"):
        open_dataset(folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CMLDataError, match=r"without cml\.nc"):
        open_dataset(tmp_path / "empty")


def test_the_backend_reads_an_openmrg_folder_by_time_range(tmp_path) -> None:
    from substrates.backends.registry import create_backend

    reference, folder = _openmrg(tmp_path)
    backend = create_backend("cml.opensense", {"path": folder})
    times = reference["time"].values
    window = backend.load(times[2], times[5])
    assert window.sizes["time"] == 3
    assert np.array_equal(window["rsl"].values, reference["rsl"].values[:, :, 2:5])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"cml_id,time,rsl\nc0,2021-01-01T00:00,-50\n", "a text file (CSV?), not netCDF"),
        (b"\x00\x01\x02\x03garbage", "not a netCDF file"),
        (b"CDF\x01" + b"\x00" * 3, "not a readable netCDF file"),
    ],
)
def test_files_that_are_not_netcdf_get_one_line(tmp_path, content, message) -> None:
    path = tmp_path / "links.nc"
    path.write_bytes(content)
    with pytest.raises(CMLDataError, match=re.escape(message)) as caught:
        open_dataset(path)
    assert len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize(("burst", "refused"), [(10**8, True), (1000, False)])
def test_a_netcdf4_variable_never_written_is_refused_by_name(tmp_path, burst, refused) -> None:
    """netCDF-4 reads chunks never written as fill values: 10⁸ declared samples a link in a
    15 KB file took 3.5 GB and 17 s. A dead link's few unwritten chunks stay readable."""
    netcdf4 = pytest.importorskip("netCDF4")
    path = write(opensense(), tmp_path)
    with netcdf4.Dataset(path, "a") as handle:
        handle.createDimension("burst", burst)
        handle.createVariable(
            "rsl_burst", "f4", ("cml_id", "sublink_id", "burst"), chunksizes=(1, 1, 1000)
        )
    if refused:
        with pytest.raises(CMLDataError, match="field 'rsl_burst': declares 600,000,000 values"):
            open_dataset(path)
    else:
        dataset, _ = open_dataset(path)
        assert dict(dataset.sizes)["time"] == 10
