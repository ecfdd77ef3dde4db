"""One suite for the MEA sources: every shipped config (skipped with its reason when it has
no recording or needs a GPU) and each file backend on a recording made by an independent
writer (the Litke byte layout, pynwb): the recording reads whole or in chunks alike,
positions match the channels; a simulator stimulates and models cells, a recorded source
refuses both."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.errors import BackendUnavailableError, CapabilityError
from substrates.backends.registry import create_backend

from .backends import configs_of, shipped_backend

MEA_CONFIGS = configs_of("mea")


@pytest.fixture(params=MEA_CONFIGS)
def shipped(request):
    return shipped_backend(request.param)


def test_shipped_configs(shipped) -> None:
    check(shipped)


def check(source) -> None:
    recording = source.recording()
    caps = source.capabilities
    assert caps.channels == recording.channels == len(recording.positions_um)
    whole = recording.get_traces()
    pieces = np.concatenate([recording.get_traces(a, min(a + 333, recording.samples))
                             for a in recording.chunks(333)])  # fmt: skip
    assert np.array_equal(whole, pieces) and whole.dtype == np.float32
    if not caps.stimulate:
        with pytest.raises(CapabilityError, match="cannot stimulate"):
            source.stimulate(None)
        with pytest.raises(CapabilityError, match="simulates no cells"):
            source.cell_model(recording.positions_um)
        return
    from substrates.datasets.mea.recording import Stimulation

    pulses = Stimulation(np.array([0.0001, 0.011]), ((0,), (1, 2)), np.array([2.0, 3.0]),
                         ("triphasic", "triphasic"), ((1.0,), (1.0, -1.0)))  # fmt: skip
    response = source.stimulate(pulses)
    assert response.channels == caps.channels and response.stimulation is pulses
    assert response.duration_s > 0.011
    model = source.cell_model(recording.positions_um)
    theta = np.array([[(p.low + p.high) / 2 for p in model.parameters]])
    assert model.templates(theta).shape == (1, caps.channels, model.template_samples)


def test_litke_file(tmp_path) -> None:
    from tests.unit.mea.test_litke import header, pack

    samples = np.random.default_rng(4).integers(-2048, 2048, (1000, 513))
    (tmp_path / "d.bin").write_bytes(header(513, 1000) + pack(samples))
    check(create_backend("mea.litke", {"path": str(tmp_path / "d.bin"), "gain_uv": 0.3}))
    with pytest.raises(BackendUnavailableError, match="unknown units"):
        create_backend("mea.litke", {"path": str(tmp_path / "d.bin")})


def test_nwb_file(tmp_path) -> None:
    pytest.importorskip("pynwb")
    from tests.unit.mea.test_nwb import pynwb_file

    data = np.random.default_rng(5).integers(-2000, 2000, (1000, 5)).astype(np.int16)
    pynwb_file(tmp_path / "r.nwb", data)
    check(create_backend("mea.nwb", {"path": str(tmp_path / "r.nwb")}))


def test_neo_raw_binary_file(tmp_path) -> None:
    """A headerless int16 file read through neo's RawBinarySignalRawIO (neo's reader, not
    ours); without stated units it is refused."""
    pytest.importorskip("neo")
    data = np.random.default_rng(6).integers(-3000, 3000, (2000, 12)).astype(np.int16)
    data.tofile(tmp_path / "r.raw")
    options = {"path": str(tmp_path / "r.raw"), "rawio": "RawBinarySignalRawIO",
               "rawio_options": {"dtype": "int16", "sampling_rate": 20000.0, "nb_channel": 12,
                                 "signal_gain": 0.195},
               "rows": 3, "columns": 4}  # fmt: skip
    source = create_backend("mea.neo", {**options, "units": "uV"})
    check(source)
    recording = source.recording()
    assert np.allclose(recording.get_traces(10, 20), data[10:20] * 0.195, rtol=1e-6)
    from substrates.backends.errors import SubstratesError

    with pytest.raises(SubstratesError, match="unknown units"):
        create_backend("mea.neo", options).recording()
    with pytest.raises(SubstratesError, match="12 channels, but the geometry has 6"):
        create_backend("mea.neo", {**options, "units": "uV", "rows": 2, "columns": 3}).recording()
    import probeinterface as pi  # positions from a probe file probeinterface wrote

    probe = pi.generate_linear_probe(num_elec=12, ypitch=25.0)
    pi.write_probeinterface(tmp_path / "probe.json", probe)
    probed = create_backend("mea.neo", {**options, "units": "uV",
                                        "probe": str(tmp_path / "probe.json")})  # fmt: skip
    check(probed)
    assert np.array_equal(probed.recording().positions_um, probe.contact_positions)
