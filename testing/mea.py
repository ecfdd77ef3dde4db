"""The MEA conformance suite, and recordings made by independent writers.

Every source: the recording reads whole or in chunks alike, positions match the channels;
a simulator stimulates and models cells (and refuses pulses it cannot play), a recorded
source refuses both. `litke_header` and `litke_pack` build Litke .bin files byte by byte
from the published layout (Vision's RawDataHeader512); `pynwb_file` writes NWB with pynwb.
"""

from __future__ import annotations

import datetime
import struct
from pathlib import Path

import numpy as np
import pytest

from ..backends.mea.base import MEABackend
from ..datasets.mea.recording import Stimulation
from ..errors import CapabilityError


def litke_pack(samples: np.ndarray) -> bytes:
    """(samples, electrodes incl. TTL at 0) int → the packed bytes, one value at a time."""
    out = bytearray()
    electrodes = samples.shape[1]
    for row in samples:
        values = [int(v) for v in row]
        if electrodes % 2:
            out += struct.pack(">H", values[0] & 0xFFFF)
            values = values[1:]
        for a, b in zip(values[0::2], values[1::2], strict=True):
            a, b = a + 2048, b + 2048
            out += bytes([a >> 4, ((a & 0xF) << 4) | (b >> 8), b & 0xFF])
    return bytes(out)


def litke_header(
    electrodes: int, samples: int, hz: int = 20_000, tags: bytes = b"", array_id: int = 504
) -> bytes:
    """A Litke raw-data header (tags 0, 1, 2, 4, 5, then `tags`, then 499; big-endian);
    array id 504 is the 512-electrode 60 µm board, 1501 the 519-electrode 30 µm one."""
    body = struct.pack(">II", 1, 12) + struct.pack(">IQ", 1, 3_800_000_000)
    body += struct.pack(">II", 2, 7) + b"retina!"
    body += struct.pack(">III", 4, 8, electrodes) + struct.pack(">I", array_id)
    body += struct.pack(">III", 5, 4, hz) + tags
    body += struct.pack(">III", 499, 4, samples)
    length = 12 + len(body)
    return struct.pack(">III", 0, 4, length) + body


def pynwb_file(
    path: str | Path, data: np.ndarray, positions: bool = True, rows: int | None = None
) -> None:
    """An NWB file written by pynwb: `data` (samples, channels) int16 at 20 kHz, 0.25 µV per
    unit, electrodes 60 µm apart in x (without positions: `positions=False`; `rows`
    electrodes instead of one per channel)."""
    import pynwb
    from pynwb.ecephys import ElectricalSeries

    nwb = pynwb.NWBFile("retina", "r1", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    group = nwb.create_electrode_group("array", "MEA", "retina", nwb.create_device("MEA"))
    for i in range(data.shape[1] if rows is None else rows):
        columns = {"rel_x": 60.0 * i, "rel_y": 30.0} if positions else {}
        nwb.add_electrode(group=group, location="retina", **columns)
    region = nwb.create_electrode_table_region(list(range(len(nwb.electrodes))), "all")
    nwb.add_acquisition(
        ElectricalSeries(name="raw", data=data, electrodes=region, rate=20_000.0, conversion=2.5e-7)
    )
    with pynwb.NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)


class TestMEABackend:
    """Every MEA source: pass a `backend` fixture (an MEABackend)."""

    def test_the_recording_reads_whole_or_in_chunks_alike(self, backend: MEABackend) -> None:
        recording = backend.recording()
        caps = backend.capabilities
        assert caps.channels == recording.channels == len(recording.positions_um)
        whole = recording.get_traces()
        pieces = np.concatenate(
            [
                recording.get_traces(a, min(a + 333, recording.samples))
                for a in recording.chunks(333)
            ]
        )
        assert np.array_equal(whole, pieces) and whole.dtype == np.float32

    def test_stimulation_and_cells_only_where_the_source_simulates(
        self, backend: MEABackend
    ) -> None:
        recording = backend.recording()
        caps = backend.capabilities
        if not caps.stimulate:
            with pytest.raises(CapabilityError, match="cannot stimulate"):
                backend.stimulate(None)  # type: ignore[arg-type]
            with pytest.raises(CapabilityError, match="simulates no cells"):
                backend.cell_model(recording.positions_um)
            return
        pulses = Stimulation(
            np.array([0.0001, 0.011]),
            ((0,), (1, 2)),
            np.array([2.0, 3.0]),
            ("triphasic", "triphasic"),
            ((1.0,), (1.0, -1.0)),
        )
        response = backend.stimulate(pulses)
        assert response.channels == caps.channels and response.stimulation is pulses
        assert response.duration_s > 0.011
        model = backend.cell_model(recording.positions_um)
        theta = np.array([[(p.low + p.high) / 2 for p in model.parameters]])
        assert model.templates(theta).shape == (1, caps.channels, model.template_samples)

    def test_pulses_it_cannot_play_are_refused_before_compute(self, backend: MEABackend) -> None:
        caps = backend.capabilities
        if not caps.stimulate:
            pytest.skip(f"{backend.name} plays back a recording")
        outside = Stimulation(
            np.array([0.001]), ((caps.channels,),), np.array([1.0]), ("triphasic",)
        )
        with pytest.raises(CapabilityError, match=f"no electrode {caps.channels}"):
            backend.stimulate(outside)
        if caps.max_current_ua is not None:
            strong = Stimulation(
                np.array([0.001]), ((0,),), np.array([2 * caps.max_current_ua]), ("triphasic",)
            )
            with pytest.raises(CapabilityError, match="outside the model's"):
                backend.stimulate(strong)

    def test_to_dict_recreates_the_source(self, backend: MEABackend) -> None:
        record = backend.to_dict()
        assert type(backend).from_dict(record).to_dict() == record
