"""Recordings in any format neo reads (MaxWell, MCS, 3Brain, Open Ephys, raw binary, ...):
neo's RawIO gives the samples a block at a time, the gain and each channel's offset (MCS and
3Brain files have them: applied); units must be known (µV, mV or V, from the file or
stated); the electrode positions come with the call, or from the file where its format
holds them (MaxWell: the `mapping` table's x, y per channel; 3Brain: each channel's row
and column on the plate, at the plate's pitch, read by probeinterface)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .recording import Recording, RecordingError, TraceSource, check_sampling_hz

MICROVOLTS = {"uV": 1.0, "µV": 1.0, "mV": 1e3, "V": 1e6}


class NeoSource(TraceSource):
    """Blocks of one stream of a neo RawIO (block 0, segment 0)."""

    def __init__(self, rawio: Any, stream: int) -> None:
        self.rawio, self.stream = rawio, stream

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        return self.rawio.get_analogsignal_chunk(
            0, 0, start, end, stream_index=self.stream, channel_indexes=list(channels)
        )


def read_neo(
    path: str | os.PathLike[str],
    positions_um: np.ndarray | None = None,
    rawio: str | None = None,
    options: dict[str, Any] | None = None,
    units: str | None = None,
    stream: int = 0,
    pitch_um: float | None = None,
) -> Recording:
    """The recording of one neo stream, of a file or of a folder format's folder (Open
    Ephys binary, Neuralynx, …). `rawio`: a neo.rawio class name (None: neo picks by the
    file name); `options`: its arguments besides the file; `units`: the samples' units
    after neo's gain where the file does not say; `positions_um` None: from the file
    (MaxWell, 3Brain — at `pitch_um`, None: probeinterface's default for the plate; other
    formats say they hold none)."""
    import neo.rawio

    try:
        if rawio is None:
            kind = neo.rawio.get_rawio(str(path))
            if kind is None:
                raise RecordingError(f"{path}: neo knows no reader for this file")
        else:
            kind = getattr(neo.rawio, rawio, None)
            if kind is None:
                raise RecordingError(f"{path}: neo has no RawIO named {rawio!r}")
        where = "dirname" if os.path.isdir(path) else "filename"  # folder formats: Open Ephys, …
        reader = kind(**{where: str(path)}, **(options or {}))
        reader.parse_header()
    except RecordingError:
        raise
    except Exception as error:  # neo's own message says what did not parse
        raise RecordingError(f"{path}: neo could not read it: {error}") from None
    if not 0 <= stream < reader.signal_streams_count():
        raise RecordingError(
            f"{path}: no signal stream {stream} (streams: {reader.signal_streams_count()})"
        )
    stream_id = reader.header["signal_streams"][stream]["id"]
    channels = reader.header["signal_channels"]
    channels = channels[channels["stream_id"] == stream_id]
    if type(reader).__name__ == "MaxwellRawIO":
        _rows_are_channels(path, channels)
    gains, offsets = channels["gain"], np.asarray(channels["offset"], float)
    if not np.allclose(gains, gains[0]):
        raise RecordingError(f"{path}: field 'signal_channels': unequal gains")
    unit = units or str(channels["units"][0])
    if unit not in MICROVOLTS:
        raise RecordingError(
            f"{path}: field 'units': unknown units {unit!r}; state them ({', '.join(MICROVOLTS)})"
        )
    if positions_um is None:
        positions_um = _file_positions(
            path, type(reader).__name__, reader, stream_id, channels, pitch_um
        )
    positions = np.asarray(positions_um, float)
    if positions.shape != (len(channels), 2):
        raise RecordingError(
            f"{path}: field 'signal_channels': {len(channels)} channels, but "
            f"the geometry has {len(positions)} electrodes"
        )
    samples = reader.get_signal_size(0, 0, stream)
    rate = check_sampling_hz(float(reader.get_signal_sampling_rate(stream)), str(path))
    gain = float(gains[0]) * MICROVOLTS[unit]
    offset_uv = offsets * MICROVOLTS[unit] if np.any(offsets != 0) else None  # MCS, 3Brain
    return Recording(
        NeoSource(reader, stream),
        samples,
        rate,
        gain,
        np.arange(len(channels)),
        positions,
        offset_uv=offset_uv,
    )


def _rows_are_channels(path: str | os.PathLike[str], channels: np.ndarray) -> None:
    """Refuse a legacy MaxOne file (`/sig` of 1,028 rows) whose routed channels are not
    rows 0, 1, 2, … in order: neo's MaxwellRawIO names each channel by its id in the
    mapping but reads the row at the channel's position (channel 7, listed first, would
    come from row 0). mea.maxwell reads each channel from its own row."""
    import h5py

    with h5py.File(path, "r") as file:
        legacy = "sig" in file
    ids = [int(c) for c in channels["id"]]
    if legacy and ids != list(range(len(ids))):
        raise RecordingError(
            f"{path}: this MaxOne file routes its channels to rows {ids[:4]}… of 'sig', which "
            "neo's MaxwellRawIO would read from rows 0, 1, 2, …: read it with mea.maxwell "
            "(hardware_configs/mea_maxwell.yaml)"
        )


def _file_positions(
    path: str | os.PathLike[str],
    kind: str,
    reader: Any,
    stream_id: str,
    channels: np.ndarray,
    pitch_um: float | None,
) -> np.ndarray:
    """(channels, 2) µm from the file itself. MaxWell MaxOne (version 20160704:
    `/mapping`) and MaxTwo (`wells/<well>/<rec>/settings/mapping`) files hold a `mapping`
    table of channel, electrode, x, y (µm), matched here to neo's channels by id (the
    table probeinterface's read_maxwell reads); 3Brain files list each channel's row and
    column, in neo's channel order, which probeinterface's read_3brain places at the
    plate's pitch."""
    if kind == "BiocamRawIO":
        import probeinterface

        probe = probeinterface.read_3brain(str(path), mea_pitch=pitch_um)
        return np.asarray(probe.contact_positions, float)[:, :2]
    if kind != "MaxwellRawIO":
        raise RecordingError(
            f"{path}: {kind} files hold no electrode positions that we "
            "read: give rows, columns and pitch_um, or probe"
        )
    import h5py

    with h5py.File(path, "r") as file:
        if "mapping" in file:
            mapping = file["mapping"][:]
        else:
            mapping = file["wells"][stream_id][reader.rec_name]["settings"]["mapping"][:]
    columns = zip(mapping["channel"], mapping["x"], mapping["y"], strict=True)
    where = {str(int(c)): (float(x), float(y)) for c, x, y in columns}
    missing = [c for c in channels["id"] if c not in where]
    if missing:
        raise RecordingError(f"{path}: field 'mapping': no position for channel {missing[0]}")
    return np.array([where[c] for c in channels["id"]])
