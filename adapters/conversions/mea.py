"""A Recording as an `mne.io.RawArray` (volts, electrode positions in metres, stimulation as
annotations so `mne.Epochs` works around pulses, bipolar pairs kept: `stim 3-4 1.5uA
biphasic` opposes the currents, `stim 3+4 ...` gives both the same) or as a SpikeInterface
recording with its probe (µm). Both read only the requested span; the SpikeInterface one
reads it lazily, as SpikeInterface asks for traces (mea_preprocessing.py filters through it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...datasets.mea.recording import Recording


def to_mne(recording: Recording, start: int = 0, end: int | None = None) -> Any:
    """Samples [start, end) as an mne RawArray of sEEG channels named by electrode id."""
    import mne

    traces = recording.get_traces(start, end)  # µV, (samples, channels)
    names = [f"E{int(e)}" for e in recording.electrode_ids]
    info = mne.create_info(names, recording.sampling_hz, ch_types="seeg")
    raw = mne.io.RawArray(traces.T.astype(np.float64) * 1e-6, info, verbose="error")
    positions = {
        n: (x * 1e-6, y * 1e-6, 0.0)
        for n, (x, y) in zip(names, recording.positions_um, strict=True)
    }
    raw.set_montage(mne.channels.make_dig_montage(positions, coord_frame="head"))
    stim = recording.stimulation
    offset = start / recording.sampling_hz
    inside = (stim.time_s >= offset) & (
        stim.time_s < offset + traces.shape[0] / recording.sampling_hz
    )
    descriptions = [
        f"stim {_site(stim.electrodes[k], stim.currents(k))} "
        f"{abs(stim.currents(k)[0]):g}uA {stim.shape[k]}"
        for k in map(int, np.flatnonzero(inside))
    ]
    if descriptions:
        raw.set_annotations(mne.Annotations(stim.time_s[inside] - offset, 0.0, descriptions))
    return raw


def _site(electrodes: tuple[int, ...], currents_ua: tuple[float, ...]) -> str:
    """Electrodes as BIDS writes a site: 3, 3+4 (the same current), 3-4 (opposed), and the
    share where one differs in size: 3+4*0.5."""
    parts = [str(electrodes[0])]
    for e, c in zip(electrodes[1:], currents_ua[1:], strict=True):
        ratio = c / currents_ua[0] if currents_ua[0] else 0.0
        share = "" if abs(abs(ratio) - 1) < 1e-9 else f"*{abs(ratio):g}"
        parts.append(("-" if ratio < 0 else "+") + f"{e}{share}")
    return "".join(parts)


def to_spikeinterface(recording: Recording, start: int = 0, end: int | None = None) -> Any:
    """Samples [start, end) as a SpikeInterface recording (µV, float32) with its probe,
    read lazily from `recording` when SpikeInterface asks for traces."""
    end = recording.samples if end is None else end
    return lazy_spikeinterface(recording).frame_slice(start_frame=start, end_frame=end)


def lazy_spikeinterface(recording: Recording) -> Any:
    """The whole of `recording` as a SpikeInterface recording (µV, float32, channels named
    E<electrode id>) with its probe (µm; none where electrodes share a position, as in a
    file read without its geometry); samples are read only when asked for."""
    import probeinterface as pi
    from spikeinterface.core import BaseRecording, BaseRecordingSegment

    class Segment(BaseRecordingSegment):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(sampling_frequency=recording.sampling_hz)

        def get_num_samples(self) -> int:
            return recording.samples

        def get_traces(
            self,
            start_frame: int | None = None,
            end_frame: int | None = None,
            channel_indices: Any = None,
        ) -> np.ndarray:
            channels = None if channel_indices is None else all_channels[channel_indices]
            return recording.get_traces(start_frame or 0, end_frame, channels)

    class Extractor(BaseRecording):  # type: ignore[misc]
        def __init__(self) -> None:
            names = [f"E{int(e)}" for e in recording.electrode_ids]
            super().__init__(recording.sampling_hz, names, np.float32)
            self.add_recording_segment(Segment())

    all_channels = np.arange(recording.channels)
    result = Extractor()
    if len(np.unique(recording.positions_um, axis=0)) < recording.channels:
        return result  # probeinterface refuses shared positions; filters need no probe
    probe = pi.Probe(ndim=2, si_units="um")
    probe.set_contacts(
        positions=recording.positions_um, shapes="circle", shape_params={"radius": 5}
    )
    probe.set_device_channel_indices(all_channels)
    probed = result.set_probe(probe)  # in place from SpikeInterface 0.103 on, a copy before
    return result if probed is None else probed
