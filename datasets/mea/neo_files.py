"""Recordings in any format neo reads (MaxWell, MCS, 3Brain, Open Ephys, raw binary, ...):
neo's RawIO gives the samples a block at a time, the gain and each channel's offset (MCS and
3Brain files have them: applied); units must be known (µV, mV or V, from the file or
stated), and the electrode positions come with the call."""

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
        return self.rawio.get_analogsignal_chunk(0, 0, start, end, stream_index=self.stream,
                                                 channel_indexes=list(channels))  # fmt: skip


def read_neo(path: str | os.PathLike[str], positions_um: np.ndarray, rawio: str | None = None,
             options: dict[str, Any] | None = None, units: str | None = None,
             stream: int = 0) -> Recording:  # fmt: skip
    """The recording of one neo stream, of a file or of a folder format's folder (Open
    Ephys binary, Neuralynx, …). `rawio`: a neo.rawio class name (None: neo picks by the
    file name); `options`: its arguments besides the file; `units`: the samples' units
    after neo's gain where the file does not say."""
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
        raise RecordingError(f"{path}: no signal stream {stream} "
                             f"(streams: {reader.signal_streams_count()})")  # fmt: skip
    stream_id = reader.header["signal_streams"][stream]["id"]
    channels = reader.header["signal_channels"]
    channels = channels[channels["stream_id"] == stream_id]
    gains, offsets = channels["gain"], np.asarray(channels["offset"], float)
    if not np.allclose(gains, gains[0]):
        raise RecordingError(f"{path}: field 'signal_channels': unequal gains")
    unit = units or str(channels["units"][0])
    if unit not in MICROVOLTS:
        raise RecordingError(f"{path}: field 'units': unknown units {unit!r}; state them "
                             f"({', '.join(MICROVOLTS)})")  # fmt: skip
    positions = np.asarray(positions_um, float)
    if positions.shape != (len(channels), 2):
        raise RecordingError(f"{path}: field 'signal_channels': {len(channels)} channels, but "
                             f"the geometry has {len(positions)} electrodes")  # fmt: skip
    samples = reader.get_signal_size(0, 0, stream)
    rate = check_sampling_hz(float(reader.get_signal_sampling_rate(stream)), str(path))
    gain = float(gains[0]) * MICROVOLTS[unit]
    offset_uv = offsets * MICROVOLTS[unit] if np.any(offsets != 0) else None  # MCS, 3Brain
    return Recording(NeoSource(reader, stream), samples, rate, gain, np.arange(len(channels)),
                     positions, offset_uv=offset_uv)  # fmt: skip
