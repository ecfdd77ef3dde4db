"""The shipped MEA suite (substrates.testing.mea) on every shipped mea config (skipped with
its reason when it has no recording or needs a GPU) and on each file backend reading a
recording made by an independent writer (the Litke byte layout, pynwb, neo's raw binary
reader, the MaxOne layout neo and SpikeInterface read); and the file backends' own
refusals."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.errors import BackendUnavailableError, SubstratesError
from substrates.testing.mea import TestMEABackend, litke_header, litke_pack, pynwb_file

from .backends import configs_of, shipped_backend

__all__ = ["TestMEABackend"]

FILES = [
    "litke file (published layout)",
    "nwb file (pynwb)",
    "raw file (neo's reader)",
    "maxone file (published layout)",
]


def _neo_options(path) -> dict:
    return {
        "path": str(path),
        "rawio": "RawBinarySignalRawIO",
        "rawio_options": {
            "dtype": "int16",
            "sampling_rate": 20000.0,
            "nb_channel": 12,
            "signal_gain": 0.195,
        },
        "rows": 3,
        "columns": 4,
    }


def _file_backend(case: str, folder) -> object:
    if case == FILES[0]:
        samples = np.random.default_rng(4).integers(-2048, 2048, (1000, 513))
        (folder / "d.bin").write_bytes(litke_header(513, 1000) + litke_pack(samples))
        return create_backend("mea.litke", {"path": str(folder / "d.bin"), "gain_uv": 0.3})
    if case == FILES[1]:
        pytest.importorskip("pynwb")
        data = np.random.default_rng(5).integers(-2000, 2000, (1000, 5)).astype(np.int16)
        pynwb_file(folder / "r.nwb", data)
        return create_backend("mea.nwb", {"path": str(folder / "r.nwb")})
    if case == FILES[3]:
        h5py = pytest.importorskip("h5py")
        sig = np.random.default_rng(7).integers(400, 624, (1028, 1500)).astype(np.uint16)
        mapping = np.zeros(
            4, [("channel", "<i4"), ("electrode", "<i4"), ("x", "<f8"), ("y", "<f8")]
        )
        mapping["channel"], mapping["electrode"] = [10, 3, 700, 44], [5, 6, 7, 8]
        mapping["x"] = 17.5 * np.arange(4)
        with h5py.File(folder / "r.raw.h5", "w") as file:
            file["version"], file["settings/lsb"] = np.array([b"20160704"]), np.array([6.3e-6])
            file["mapping"], file["sig"] = mapping, sig
        return create_backend("mea.maxwell", {"path": str(folder / "r.raw.h5")})
    pytest.importorskip("neo")
    data = np.random.default_rng(6).integers(-3000, 3000, (2000, 12)).astype(np.int16)
    data.tofile(folder / "r.raw")
    return create_backend("mea.neo", {**_neo_options(folder / "r.raw"), "units": "uV"})


HEAVY = (pytest.mark.science, pytest.mark.memory_heavy)
CASES = [
    pytest.param(name, marks=HEAVY) if name == "mea_sim_512" else name for name in configs_of("mea")
]
"""Every shipped mea config; the 512-electrode session (~60 s to simulate, 7.6 GB resident
measured) in the science lane, its code path is the small mea_sim's."""


@pytest.fixture(scope="module", params=[*CASES, *FILES])
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """One backend per case for the whole module: a simulated session (mea_sim_512: 16 × 32
    electrodes, three cells, 10 s) is simulated once, on first use, not once per test."""
    if request.param in FILES:
        return _file_backend(request.param, tmp_path_factory.mktemp("recording"))
    return shipped_backend(request.param)


def test_a_litke_file_without_units_is_refused(tmp_path) -> None:
    samples = np.random.default_rng(4).integers(-2048, 2048, (100, 513))
    (tmp_path / "d.bin").write_bytes(litke_header(513, 100) + litke_pack(samples))
    with pytest.raises(BackendUnavailableError, match="unknown units"):
        create_backend("mea.litke", {"path": str(tmp_path / "d.bin")})


def test_neo_samples_units_geometry_and_probe(tmp_path) -> None:
    """A headerless int16 file read through neo's RawBinarySignalRawIO (neo's reader, not
    ours); without stated units it is refused."""
    pytest.importorskip("neo")
    data = np.random.default_rng(6).integers(-3000, 3000, (2000, 12)).astype(np.int16)
    data.tofile(tmp_path / "r.raw")
    options = _neo_options(tmp_path / "r.raw")
    recording = create_backend("mea.neo", {**options, "units": "uV"}).recording()
    assert np.allclose(recording.get_traces(10, 20), data[10:20] * 0.195, rtol=1e-6)
    with pytest.raises(SubstratesError, match="unknown units"):
        create_backend("mea.neo", options).recording()
    with pytest.raises(SubstratesError, match="12 channels, but the geometry has 6"):
        create_backend("mea.neo", {**options, "units": "uV", "rows": 2, "columns": 3}).recording()
    import probeinterface as pi  # positions from a probe file probeinterface wrote

    probe = pi.generate_linear_probe(num_elec=12, ypitch=25.0)
    pi.write_probeinterface(tmp_path / "probe.json", probe)
    probed = create_backend(
        "mea.neo", {**options, "units": "uV", "probe": str(tmp_path / "probe.json")}
    )
    assert np.array_equal(probed.recording().positions_um, probe.contact_positions)


def test_neo_channel_offsets_are_applied_and_rates_checked(tmp_path) -> None:
    """neo's own reader with a signal offset (as MCS raw and 3Brain files carry): the µV
    are stored × gain + offset; a rate no MEA has (20 Hz: kHz read as Hz) is one line."""
    pytest.importorskip("neo")
    data = np.random.default_rng(7).integers(0, 4096, (2000, 12)).astype(np.int16)
    data.tofile(tmp_path / "r.raw")
    options = _neo_options(tmp_path / "r.raw")
    options["rawio_options"] = {**options["rawio_options"], "signal_offset": -399.36}
    recording = create_backend("mea.neo", {**options, "units": "uV"}).recording()
    assert np.allclose(recording.get_traces(10, 20), data[10:20] * 0.195 - 399.36, atol=1e-3)
    options["rawio_options"] = {**options["rawio_options"], "sampling_rate": 20.0}
    with pytest.raises(SubstratesError, match="sampling rate 20 Hz; spikes need"):
        create_backend("mea.neo", {**options, "units": "uV"}).recording()
