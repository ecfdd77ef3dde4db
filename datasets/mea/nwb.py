"""NWB recordings (pynwb): an ElectricalSeries in /acquisition with its electrodes table
(positions in the rel_x, rel_y columns, else x, y; µm) and, optionally, a 'stimulation'
TimeIntervals table. Samples are read lazily from the HDF5 dataset, a block at a time, as
data × conversion (× channel_conversion) + offset; a 1-D series is one channel;
stimulation times are taken from the series' first sample (its starting_time is
subtracted).

The stimulation table, as NWB users write it: start_time (s); `electrodes`, a
DynamicTableRegion into the electrodes table (one row, or ragged with an index for
several); the amplitude as `amplitude` (A, SI as NWB asks) or `current_ua` (µA); the pulse
`shape` or `waveform` (default biphasic); `weights`, each electrode's share of the
amplitude (ragged floats), needed where an event stimulates several electrodes (a bipolar
pair's polarity is not guessed). Files our earlier writer made (electrodes as '3+4'
strings, weights as '1.0 -1.0') stay readable; we now write the standard layout."""

from __future__ import annotations

import datetime
import logging
import os
from pathlib import Path

import numpy as np

from ..hdf5_storage import unwritten
from .recording import Recording, RecordingError, Stimulation, TraceSource, check_sampling_hz


class NWBSource(TraceSource):
    """Reads blocks of one ElectricalSeries' data with h5py (the file is opened per block)."""

    def __init__(self, path: Path, dataset: str) -> None:
        self.path, self.dataset = path, dataset

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        import h5py

        with h5py.File(self.path, "r") as handle:
            data = handle[self.dataset]
            rows = data[start:end]
            return (rows[:, None] if data.ndim == 1 else rows)[:, channels]


def read_nwb(path: str | os.PathLike[str], series: str | None = None) -> Recording:
    """The recording of an NWB file's ElectricalSeries (`series`, or the only one)."""
    from pynwb import NWBHDF5IO
    from pynwb.ecephys import ElectricalSeries

    path = Path(path)
    try:
        io = NWBHDF5IO(str(path), "r")
        nwb = io.read()
    except Exception as error:  # pynwb's and h5py's own message says what is wrong
        raise RecordingError(f"{path}: not a readable NWB file: {error}") from None
    with io:
        found = {k: v for k, v in nwb.acquisition.items() if isinstance(v, ElectricalSeries)}
        if not found or (series is not None and series not in found):
            listed = ", ".join(found) or "none"
            raise RecordingError(
                f"{path}: field 'acquisition': no ElectricalSeries {series or ''} (found: {listed})"
            )
        name = series or next(iter(found))
        data = found[name]
        if nwb.electrodes is None or data.electrodes is None:
            raise RecordingError(f"{path}: field 'electrodes': no electrodes table")
        table = nwb.electrodes
        columns = next((pair for pair in POSITIONS if set(pair) <= set(table.colnames)), None)
        if columns is None:
            raise RecordingError(
                f"{path}: field 'electrodes': no positions (rel_x, rel_y or x, y columns, µm)"
            )
        if columns != POSITIONS[0]:
            log.info(
                "%s: electrode positions from the %s, %s columns (no rel_x, rel_y)", path, *columns
            )
        rows = np.asarray(data.electrodes.data[:])
        positions = np.stack([np.asarray(table[c].data[:], float)[rows] for c in columns], axis=1)
        shape = data.data.shape
        if len(shape) not in (1, 2):
            raise RecordingError(
                f"{path}: field 'data': shape {tuple(shape)}; an ElectricalSeries holds "
                "(samples,) or (samples, channels)"
            )
        stored = getattr(data.data, "id", None)  # an h5py dataset, not data in memory
        if stored is not None and (reason := unwritten(data.data, UNWRITTEN_ALLOWANCE_BYTES)):
            raise RecordingError(f"{path}: field 'data': {reason}")
        width = 1 if len(shape) == 1 else shape[1]  # a 1-D series is one channel
        if width != len(rows):
            raise RecordingError(
                f"{path}: field 'data': {width} channels but {len(rows)} electrodes"
            )
        if data.rate is None:
            raise RecordingError(f"{path}: field 'rate': the series has timestamps, not a rate")
        rate = check_sampling_hz(float(data.rate), f"{path}: field 'rate'")
        gain = _scale(data.conversion, path, "conversion") * 1e6
        if data.channel_conversion is not None:
            scales = np.asarray(data.channel_conversion[:], dtype=float)
            for scale in scales:
                _scale(scale, path, "channel_conversion")
            if not np.allclose(scales, scales[0]):
                raise RecordingError(f"{path}: field 'channel_conversion': unequal gains")
            gain *= float(scales[0])
        offset_v = float(getattr(data, "offset", 0.0) or 0.0)
        if not np.isfinite(offset_v):
            raise RecordingError(f"{path}: field 'offset': non-finite ({offset_v})")
        stimulation = _stimulation(nwb, path, float(data.starting_time or 0.0))
        offset = offset_v * 1e6  # V -> µV
        return Recording(
            NWBSource(path, f"/acquisition/{name}/data"),
            shape[0],
            rate,
            gain,
            np.asarray(table.id.data[:])[rows],
            positions,
            stimulation,
            np.full(len(rows), offset) if offset else None,
        )


POSITIONS = (("rel_x", "rel_y"), ("x", "y"))
"""The electrodes table's columns read as positions, in this order of preference: both
pairs are in µm (NWB's schema), rel_* within the electrode group (an array's layout), x, y
in the brain (a probe registered to an atlas, or an array described only there)."""
log = logging.getLogger("substrates")

UNWRITTEN_ALLOWANCE_BYTES = 64 << 20
"""Samples an ElectricalSeries may declare without storing them (bytes; they read as the
fill value): more is a file that declares a recording it does not hold."""


def _scale(value: object, path: Path, field: str) -> float:
    """A conversion factor (V per stored unit) that can turn data into volts: finite and
    non-zero (a negative one, an inverting amplifier, is kept)."""
    number = float(value)  # type: ignore[arg-type]  # path: an HDF5 scalar
    if not np.isfinite(number) or number == 0:
        kind = "zero" if number == 0 else "non-finite"
        raise RecordingError(
            f"{path}: field '{field}': {kind} ({number}); it scales stored values to volts"
        )
    return number


def _stimulation(nwb: object, path: Path, starting_time_s: float) -> Stimulation:
    """The stimulation table's events, timed from the series' first sample (NWB times are
    the session's; the series starts `starting_time_s` into it)."""
    intervals = getattr(nwb, "intervals", None) or {}
    if "stimulation" not in intervals:
        return Stimulation.none()
    table = intervals["stimulation"]
    where = f"{path}: field 'intervals/stimulation'"
    columns = set(table.colnames)
    amplitude = next((c for c in ("amplitude", "current_ua") if c in columns), None)
    if "electrodes" not in columns or amplitude is None:
        raise RecordingError(
            f"{where}: needs columns 'electrodes' and 'amplitude' (A) or 'current_ua' (µA)"
        )
    electrodes = _electrode_groups(table["electrodes"], where)
    scale = 1e6 if amplitude == "amplitude" else 1.0  # A -> µA
    currents = np.asarray(table[amplitude][:], float) * scale
    shape_column = next((c for c in ("shape", "waveform") if c in columns), None)
    shapes = (
        tuple(str(v) for v in table[shape_column][:])
        if shape_column
        else ("biphasic",) * len(electrodes)
    )
    weights = None
    if "weights" in columns:
        weights = tuple(
            tuple(float(w) for w in (str(v).split() if isinstance(v, str | bytes) else v))
            for v in table["weights"][:]
        )
    else:
        several = next((k for k, e in enumerate(electrodes) if len(e) > 1), None)
        if several is not None:
            pair = " and ".join(map(str, electrodes[several]))
            raise RecordingError(
                f"{where}: row {several} stimulates electrodes {pair} together, but the table "
                "has no 'weights' column to say their polarity (1, -1 for a bipolar pair; "
                "1, 1 for both alike): add one"
            )
    try:
        return Stimulation(
            np.asarray(table["start_time"][:], float) - starting_time_s,
            electrodes,
            currents,
            shapes,
            weights,
        )
    except RecordingError as error:
        raise RecordingError(f"{where}: {error}") from None


def _electrode_groups(column: object, where: str) -> tuple[tuple[int, ...], ...]:
    """Each event's electrode ids from a (ragged) DynamicTableRegion, or '3+4' strings."""
    from hdmf.common.table import DynamicTableRegion, VectorIndex

    if isinstance(column, VectorIndex) and isinstance(column.target, DynamicTableRegion):
        ids = np.asarray(column.target.table.id.data[:])
        rows = np.asarray(column.target.data[:])
        ends = np.asarray(column.data[:])
        starts = np.concatenate([[0], ends[:-1]])
        return tuple(
            tuple(int(i) for i in ids[rows[a:b]]) for a, b in zip(starts, ends, strict=True)
        )
    if isinstance(column, DynamicTableRegion):
        ids = np.asarray(column.table.id.data[:])
        return tuple((int(ids[r]),) for r in np.asarray(column.data[:]))
    try:
        return tuple(tuple(int(e) for e in str(v).split("+")) for v in column[:])  # type: ignore[index]
    except ValueError:
        raise RecordingError(
            f"{where}: 'electrodes' is neither a region of the electrodes table nor '3+4' ids"
        ) from None


def write_nwb(recording: Recording, path: str | os.PathLike[str], description: str = "") -> None:
    """The recording (int16 when stored as int, else float32; per-channel offsets baked
    into float32 µV, one shared offset as NWB's `offset`) with its electrodes table and
    stimulation intervals, as NWB (temporary name, then renamed)."""
    from pynwb import NWBHDF5IO, NWBFile
    from pynwb.ecephys import ElectricalSeries

    path = Path(path)
    start = datetime.datetime.now(datetime.UTC)
    nwb = NWBFile(description or "substrates MEA recording", path.stem, start)
    device = nwb.create_device("MEA")
    group = nwb.create_electrode_group("array", "multi-electrode array", "unknown", device)
    for eid, (x, y) in zip(recording.electrode_ids, recording.positions_um, strict=True):
        nwb.add_electrode(
            group=group, location="unknown", rel_x=float(x), rel_y=float(y), id=int(eid)
        )
    region = nwb.create_electrode_table_region(list(range(recording.channels)), "all")
    offsets = recording.offset_uv
    if offsets is not None and not np.allclose(offsets, offsets[0]):  # NWB has one offset
        raw, volts_per_unit, offset_v = recording.get_traces(), 1e-6, 0.0
    else:
        raw, volts_per_unit = recording.get_traces(microvolts=False), recording.gain_uv * 1e-6
        offset_v = 0.0 if offsets is None else float(offsets[0]) * 1e-6
    series = ElectricalSeries(
        name="ElectricalSeries",
        data=raw,
        electrodes=region,
        rate=recording.sampling_hz,
        conversion=volts_per_unit,
        offset=offset_v,
    )
    nwb.add_acquisition(series)
    stim = recording.stimulation
    if len(stim.time_s):
        nwb.add_time_intervals(_intervals(stim, nwb.electrodes, recording.electrode_ids))
    temporary = path.with_name(f".{path.stem}.part.nwb")  # pynwb wants the .nwb suffix
    with NWBHDF5IO(str(temporary), "w") as io:
        io.write(nwb)
    os.replace(temporary, path)


def _intervals(stim: Stimulation, electrodes: object, electrode_ids: np.ndarray) -> object:
    """The stimulation as an NWB TimeIntervals table in the standard layout (electrodes as
    a ragged region of the electrodes table, amplitude in A)."""
    from pynwb.epoch import TimeIntervals

    row_of = {int(e): k for k, e in enumerate(electrode_ids)}
    table = TimeIntervals(name="stimulation", description="electrical stimulation pulses")
    table.add_column(
        name="electrodes", description="stimulated electrodes", table=electrodes, index=True
    )
    table.add_column(name="amplitude", description="pulse amplitude, A (the first phase's sign)")
    table.add_column(name="shape", description="pulse shape: biphasic or triphasic")
    weights = stim.weights
    if weights is None and any(len(e) > 1 for e in stim.electrodes):  # polarity said outright
        weights = tuple((1.0,) * len(e) for e in stim.electrodes)
    if weights is not None:
        table.add_column(
            name="weights", description="each electrode's share of the amplitude", index=True
        )
    for k in range(len(stim)):
        row = {
            "electrodes": [row_of[int(e)] for e in stim.electrodes[k]],
            "amplitude": float(stim.current_ua[k]) * 1e-6,
            "shape": stim.shape[k],
        }
        if weights is not None:
            row["weights"] = [float(w) for w in weights[k]]
        table.add_row(start_time=float(stim.time_s[k]), stop_time=float(stim.time_s[k]), **row)
    return table
