"""When stimulation pulses came, from the recording itself: the edges of a TTL line
(Litke's trigger channel, electrode 0) or the events of a neo event channel (the digital
inputs of Open Ephys, Intan, Blackrock, ...). What each pulse was — electrodes, current,
waveform — comes from a protocol table in pulse order (`bids_events.read_events_tsv`
with `onsets_s`), as a stimulation rig's own stimulus file lists it.

Example:
    >>> import numpy as np
    >>> line = np.zeros(100, np.int16)
    >>> line[[10, 11, 60, 61]] = -1000  # two pulses, 2 samples each
    >>> ttl_onsets(line, 20_000.0).tolist()
    [0.0005, 0.003]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .recording import RecordingError


def ttl_onsets(line: np.ndarray, sampling_hz: float, threshold: float | None = None) -> np.ndarray:
    """Onsets (s, from the first sample) of the pulses on a TTL line: the samples where it
    leaves its resting level (the median) past `threshold` (default: halfway to the
    extreme farthest from rest, so pulses of either sign are found). A pulse already on at
    the first sample is not an onset. A flat line has none."""
    values = np.asarray(line, np.float64)
    if values.ndim != 1 or not len(values):
        return np.zeros(0)
    rest = float(np.median(values))
    low, high = float(values.min()), float(values.max())
    rising = high - rest >= rest - low
    far = high if rising else low
    if far == rest:
        return np.zeros(0)
    level = (rest + far) / 2 if threshold is None else float(threshold)
    if not min(rest, far) < level < max(rest, far):
        raise RecordingError(
            f"TTL threshold {level:g} is not between the line's rest "
            f"({rest:g}) and its pulses ({far:g})"
        )
    on = values > level if rising else values < level
    return (np.flatnonzero(on[1:] & ~on[:-1]) + 1) / sampling_hz


def neo_event_onsets(rawio: Any, channel: str, stream: int = 0) -> np.ndarray:
    """Onsets (s, from the signal stream's first sample) of the events of a neo RawIO's
    event channel, named by its name or id (block 0, segment 0); epochs give their
    starts. One line when the channel is missing or empty."""
    channels = rawio.header["event_channels"]
    names = [str(c["name"]) for c in channels]
    ids = [str(c["id"]) for c in channels]
    if channel in names:
        index = names.index(channel)
    elif channel in ids:
        index = ids.index(channel)
    else:
        raise RecordingError(
            f"no event channel {channel!r}; the file has {', '.join(map(repr, names)) or 'none'}"
        )
    stamps, _, _ = rawio.get_event_timestamps(block_index=0, seg_index=0, event_channel_index=index)
    if not len(stamps):
        raise RecordingError(f"event channel {channel!r} holds no events")
    times = rawio.rescale_event_timestamp(stamps, dtype="float64", event_channel_index=index)
    start = float(rawio.get_signal_t_start(block_index=0, seg_index=0, stream_index=stream))
    return np.sort(np.asarray(times, np.float64) - start)
