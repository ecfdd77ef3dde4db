"""NWB recordings: a file written by pynwb itself is read sample for sample; ours is read by
pynwb; files without an electrodes table or with a channel mismatch are refused."""

from __future__ import annotations

import re

import numpy as np
import pytest

from substrates.datasets.mea.recording import RecordingError
from substrates.testing.mea import pynwb_file

pynwb = pytest.importorskip("pynwb")


def test_a_pynwb_file_reads_sample_for_sample(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    data = np.random.default_rng(1).integers(-2000, 2000, (5000, 6)).astype(np.int16)
    pynwb_file(tmp_path / "r.nwb", data)
    recording = read_nwb(tmp_path / "r.nwb")
    assert (recording.samples, recording.channels, recording.sampling_hz) == (5000, 6, 20_000)
    assert recording.gain_uv == pytest.approx(0.25)
    assert np.array_equal(
        recording.get_traces(100, 200, np.array([4, 1]), microvolts=False), data[100:200][:, [4, 1]]
    )
    assert np.allclose(recording.positions_um[:, 0], 60.0 * np.arange(6))


def test_our_file_reads_back_in_pynwb(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb, write_nwb
    from substrates.datasets.mea.recording import Recording, Stimulation

    data = np.random.default_rng(2).integers(-2000, 2000, (800, 4)).astype(np.int16)
    pynwb_file(tmp_path / "a.nwb", data)
    base = read_nwb(tmp_path / "a.nwb")
    pulses = Stimulation(
        np.array([0.01, 0.02]), ((2,), (1, 3)), np.array([0.5, 1.25]), ("biphasic", "triphasic")
    )
    recording = Recording(
        base.source,
        base.samples,
        base.sampling_hz,
        base.gain_uv,
        base.electrode_ids,
        base.positions_um,
        pulses,
    )
    write_nwb(recording, tmp_path / "ours.nwb")
    with pynwb.NWBHDF5IO(str(tmp_path / "ours.nwb"), "r") as io:
        nwb = io.read()
        series = nwb.acquisition["ElectricalSeries"]
        assert np.array_equal(series.data[:], data) and series.conversion == pytest.approx(2.5e-7)
        table = nwb.intervals["stimulation"]  # the standard layout, as pynwb reads it
        region = table["electrodes"]
        ids = nwb.electrodes.id.data[:]
        assert [ids[r] for r in region.target.data[:]] == [2, 1, 3]
        assert list(region.data[:]) == [1, 3]  # ragged: one electrode, then two
        assert region.target.table is nwb.electrodes
        assert np.allclose(table["amplitude"][:], [0.5e-6, 1.25e-6])  # A, SI
    again = read_nwb(tmp_path / "ours.nwb")
    assert again.stimulation.electrodes == ((2,), (1, 3))
    assert np.allclose(again.stimulation.current_ua, [0.5, 1.25])
    assert again.stimulation.shape == ("biphasic", "triphasic")


def _with_intervals(path, build) -> None:
    """A pynwb file of 4 electrodes (ids 10…13) whose stimulation table `build` fills."""
    import datetime

    from pynwb.ecephys import ElectricalSeries
    from pynwb.epoch import TimeIntervals

    nwb = pynwb.NWBFile("retina", "r1", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    group = nwb.create_electrode_group("array", "MEA", "retina", nwb.create_device("MEA"))
    for i in range(4):
        nwb.add_electrode(group=group, location="retina", rel_x=60.0 * i, rel_y=0.0, id=10 + i)
    region = nwb.create_electrode_table_region(list(range(4)), "all")
    nwb.add_acquisition(
        ElectricalSeries(
            name="raw", data=np.zeros((400, 4), np.int16), electrodes=region, rate=20_000.0
        )
    )
    table = TimeIntervals(name="stimulation", description="pulses")
    build(table, nwb)
    nwb.add_time_intervals(table)
    with pynwb.NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)


def test_a_pynwb_table_with_one_electrode_per_row_and_amplitudes_in_amperes(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    def build(table, nwb) -> None:
        table.add_column(name="electrodes", description="site", table=nwb.electrodes)
        table.add_column(name="amplitude", description="A")
        table.add_column(name="waveform", description="pulse")
        table.add_row(
            start_time=0.002,
            stop_time=0.0022,
            electrodes=2,
            amplitude=-1.5e-6,
            waveform="triphasic",
        )
        table.add_row(
            start_time=0.010, stop_time=0.0102, electrodes=0, amplitude=3e-6, waveform="biphasic"
        )

    _with_intervals(tmp_path / "std.nwb", build)
    stim = read_nwb(tmp_path / "std.nwb").stimulation
    assert stim.electrodes == ((12,), (10,))  # ids from the electrodes table, not rows
    assert np.allclose(stim.current_ua, [-1.5, 3.0])
    assert stim.shape == ("triphasic", "biphasic") and stim.weights is None


def _pairs(weights: bool):
    """A stimulation table filler (pynwb, ragged electrodes): a bipolar pair of electrodes
    11 and 13, and a single electrode; with a `weights` column (1, -1) or without one."""

    def build(table, nwb) -> None:
        table.add_column(name="electrodes", description="sites", table=nwb.electrodes, index=True)
        table.add_column(name="amplitude", description="A")
        if weights:
            table.add_column(name="weights", description="share", index=True)
        rows = [([1, 3], [1.0, -1.0]), ([2], [1.0])]
        for k, (region, share) in enumerate(rows):
            extra = {"weights": share} if weights else {}
            table.add_row(
                start_time=0.01 * (k + 1),
                stop_time=0.01 * (k + 1),
                electrodes=region,
                amplitude=2e-6,
                **extra,
            )

    return build


def test_a_bipolar_pair_without_polarity_is_refused_by_name(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb
    from substrates.datasets.mea.recording import RecordingError

    _with_intervals(tmp_path / "signed.nwb", _pairs(weights=True))
    stim = read_nwb(tmp_path / "signed.nwb").stimulation
    assert stim.electrodes == ((11, 13), (12,)) and stim.currents(0) == (2.0, -2.0)
    _with_intervals(tmp_path / "unsigned.nwb", _pairs(weights=False))
    with pytest.raises(RecordingError, match="row 0 stimulates electrodes 11 and 13 together"):
        read_nwb(tmp_path / "unsigned.nwb")


def test_our_writer_says_the_polarity_of_every_pair(tmp_path) -> None:
    """A pair given without weights (both electrodes alike) is written with weights 1, 1,
    so the file reads back the same instead of being refused."""
    from substrates.datasets.mea.nwb import read_nwb, write_nwb
    from substrates.datasets.mea.recording import ArraySource, Recording, Stimulation

    pulses = Stimulation(np.array([0.001]), ((0, 1),), np.array([1.5]), ("biphasic",))
    recording = Recording(
        ArraySource(np.zeros((100, 2), np.float32)),
        100,
        20000.0,
        1.0,
        np.arange(2),
        np.zeros((2, 2)),
        pulses,
    )
    write_nwb(recording, tmp_path / "pair.nwb", "a pair alike")
    again = read_nwb(tmp_path / "pair.nwb").stimulation
    assert again.electrodes == ((0, 1),) and again.currents(0) == (1.5, 1.5)


def test_files_of_our_earlier_writer_stay_readable(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    def build(table, nwb) -> None:  # electrodes as '+'-joined strings, µA, string weights
        for name in ("electrodes", "current_ua", "shape", "weights"):
            table.add_column(name=name, description=name)
        table.add_row(
            start_time=0.01,
            stop_time=0.01,
            electrodes="11+13",
            current_ua=2.0,
            shape="biphasic",
            weights="1.0 -1.0",
        )

    _with_intervals(tmp_path / "old.nwb", build)
    stim = read_nwb(tmp_path / "old.nwb").stimulation
    assert stim.electrodes == ((11, 13),) and stim.weights == ((1.0, -1.0),)
    assert np.allclose(stim.current_ua, [2.0])


def test_files_missing_what_a_recording_needs_are_refused(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    data = np.zeros((10, 3), np.int16)
    pynwb_file(tmp_path / "nopos.nwb", data, positions=False)
    with pytest.raises(
        RecordingError, match=r"field .electrodes.: no positions \(rel_x, rel_y or x, y"
    ):
        read_nwb(tmp_path / "nopos.nwb")
    (tmp_path / "junk.nwb").write_bytes(b"junk")
    with pytest.raises(RecordingError, match="not a readable NWB file"):
        read_nwb(tmp_path / "junk.nwb")
    pynwb_file(tmp_path / "r.nwb", data)
    with pytest.raises(RecordingError, match=r"no ElectricalSeries lfp \(found: raw\)"):
        read_nwb(tmp_path / "r.nwb", series="lfp")


def _series_file(
    path,
    data,
    *,
    rate=20_000.0,
    offset=0.0,
    starting_time=0.0,
    conversion=2.5e-7,
    channel_conversion=None,
) -> None:
    """An NWB file written by pynwb: one ElectricalSeries (2-D, or 1-D for one channel) at
    0.25 µV per unit with `offset` (V), starting `starting_time` s into the session, and a
    stimulation interval at 1.5 s of session time on the first electrode."""
    import datetime

    from pynwb.ecephys import ElectricalSeries
    from pynwb.epoch import TimeIntervals

    nwb = pynwb.NWBFile("retina", "r1", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    group = nwb.create_electrode_group("array", "MEA", "retina", nwb.create_device("MEA"))
    channels = 1 if data.ndim == 1 else data.shape[1]
    if data.ndim == 3:  # (samples, channels, bands): what an LFP decomposition writes
        channels = data.shape[1]
    for i in range(channels):
        nwb.add_electrode(group=group, location="retina", rel_x=60.0 * i, rel_y=0.0)
    region = nwb.create_electrode_table_region(list(range(channels)), "all")
    nwb.add_acquisition(
        ElectricalSeries(
            name="raw",
            data=data,
            electrodes=region,
            rate=rate,
            conversion=conversion,
            channel_conversion=channel_conversion,
            offset=offset,
            starting_time=starting_time,
        )
    )
    table = TimeIntervals(name="stimulation", description="pulses")
    table.add_column(name="electrodes", description="site", table=nwb.electrodes)
    table.add_column(name="amplitude", description="A")
    table.add_row(start_time=1.5, stop_time=1.5002, electrodes=0, amplitude=2e-6)
    nwb.add_time_intervals(table)
    with pynwb.NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)


def test_offset_starting_time_and_one_channel_series_as_nwb_defines_them(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb, write_nwb

    data = np.random.default_rng(2).integers(-500, 500, (4000, 3)).astype(np.int16)
    _series_file(tmp_path / "o.nwb", data, offset=-1e-3, starting_time=1.25)
    recording = read_nwb(tmp_path / "o.nwb")
    # NWB: value = data × conversion + offset; -1 mV is -1000 µV on every channel
    assert np.allclose(recording.get_traces(), data * 0.25 - 1000.0, atol=1e-3)
    assert np.allclose(recording.stimulation.time_s, [0.25])  # 1.5 s of session time
    write_nwb(recording, tmp_path / "again.nwb")
    with pynwb.NWBHDF5IO(str(tmp_path / "again.nwb"), "r") as io:
        series = io.read().acquisition["ElectricalSeries"]
        volts = series.data[:] * series.conversion + series.offset
    assert np.allclose(volts * 1e6, data * 0.25 - 1000.0, atol=1e-3)

    _series_file(tmp_path / "one.nwb", data[:, 1].copy())
    single = read_nwb(tmp_path / "one.nwb")
    assert single.channels == 1
    assert np.array_equal(single.get_traces(10, 20, microvolts=False)[:, 0], data[10:20, 1])


def test_a_sampling_rate_no_mea_has_is_refused(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    _series_file(tmp_path / "slow.nwb", np.zeros((100, 2), np.int16), rate=20.0)
    with pytest.raises(RecordingError, match=r"field 'rate': sampling rate 20 Hz; spikes need"):
        read_nwb(tmp_path / "slow.nwb")


@pytest.mark.parametrize(
    ("field", "changes", "reason"),
    [
        ("conversion", {"conversion": float("nan")}, "non-finite (nan)"),
        ("conversion", {"conversion": float("inf")}, "non-finite (inf)"),
        ("conversion", {"conversion": 0.0}, "zero (0.0)"),
        ("offset", {"offset": float("nan")}, "non-finite (nan)"),
        ("channel_conversion", {"channel_conversion": [1.0, float("nan")]}, "non-finite"),
        ("channel_conversion", {"channel_conversion": [0.0, 0.0]}, "zero"),
    ],
)
def test_scales_that_cannot_make_volts_are_refused_by_field(
    tmp_path, field, changes, reason
) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    _series_file(tmp_path / "bad.nwb", np.zeros((100, 2), np.int16), **changes)
    with pytest.raises(RecordingError, match=rf"field '{field}': {re.escape(reason)}"):
        read_nwb(tmp_path / "bad.nwb")


def test_an_inverting_amplifier_is_read_with_its_sign(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    data = np.arange(200, dtype=np.int16).reshape(100, 2)
    _series_file(tmp_path / "inv.nwb", data, conversion=-2.5e-7)
    assert np.allclose(read_nwb(tmp_path / "inv.nwb").get_traces(), -0.25 * data)


def test_data_of_three_dimensions_is_refused_naming_its_shape(tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb

    _series_file(tmp_path / "3d.nwb", np.zeros((100, 3, 3), np.int16))
    with pytest.raises(RecordingError, match=r"field 'data': shape \(100, 3, 3\); an Elec"):
        read_nwb(tmp_path / "3d.nwb")


def test_a_series_declaring_samples_never_written_is_refused(tmp_path) -> None:
    """An NWB file is HDF5: a series can declare 10⁹ samples in a file of kilobytes."""
    import h5py

    pynwb_file(tmp_path / "r.nwb", np.zeros((20, 3), np.int16))
    with h5py.File(tmp_path / "r.nwb", "a") as handle:
        group = handle["acquisition/raw"]
        attributes = dict(group["data"].attrs)
        del group["data"]
        data = group.create_dataset("data", shape=(10**9, 3), dtype="i2", chunks=(65536, 3))
        data.attrs.update(attributes)
    from substrates.datasets.mea.nwb import read_nwb

    with pytest.raises(RecordingError, match="field 'data': declares 3,000,000,000 values"):
        read_nwb(tmp_path / "r.nwb")


def test_positions_from_the_standard_x_y_columns_where_rel_are_absent(tmp_path, caplog) -> None:
    """NWB's electrodes table has x, y, z (µm, in the brain) as well as rel_x, rel_y (µm,
    in the group): a file with only the first reads, saying which columns it used."""
    import datetime
    import logging

    from pynwb.ecephys import ElectricalSeries

    from substrates.datasets.mea.nwb import read_nwb

    nwb = pynwb.NWBFile("retina", "r1", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    group = nwb.create_electrode_group("array", "MEA", "retina", nwb.create_device("MEA"))
    for i in range(3):
        nwb.add_electrode(group=group, location="retina", x=60.0 * i, y=30.0, z=0.0)
    region = nwb.create_electrode_table_region([0, 1, 2], "all")
    data = np.arange(60, dtype=np.int16).reshape(20, 3)
    nwb.add_acquisition(
        ElectricalSeries(name="raw", data=data, electrodes=region, rate=20_000.0, conversion=1e-6)
    )
    with pynwb.NWBHDF5IO(str(tmp_path / "xy.nwb"), "w") as io:
        io.write(nwb)
    with caplog.at_level(logging.INFO, logger="substrates"):
        recording = read_nwb(tmp_path / "xy.nwb")
    assert np.allclose(recording.positions_um, [[0, 30], [60, 30], [120, 30]])
    assert "electrode positions from the x, y columns" in caplog.text
