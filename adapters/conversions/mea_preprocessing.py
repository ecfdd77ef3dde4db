"""Preprocessing of MEA recordings before spike detection, by SpikeInterface: band- or
high-pass filters, notch filters, common median/average reference, whitening. A chain is
written as a short spec (`bandpass:300-6000,cmr`) that maps one to one onto a
SpikeInterface pipeline (`spikeinterface.preprocessing.apply_preprocessing_pipeline`), and
the result is a Recording again, read lazily chunk by chunk through SpikeInterface (which
pads each read with its filters' margins)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ...datasets.mea.recording import ArraySource, Recording, TraceSource
from ...errors import OptionError

DEFAULT_PREPROCESSING = "bandpass:300-6000,cmr"
"""What hh-fit detects spikes on unless told otherwise: the usual spike band, then the
median over all channels subtracted (removes DC offsets, drift, mains and common noise)."""

STEPS = {
    "highpass": "highpass:LOW (Hz)",
    "bandpass": "bandpass:LOW-HIGH (Hz)",
    "notch": "notch:FREQ (Hz)",
    "cmr": "cmr (common median reference)",
    "car": "car (common average reference)",
    "whiten": "whiten (global whitening)",
    "none": "none (raw traces)",
}


class PreprocessingError(OptionError):
    """A preprocessing spec that cannot be read; the message names the step."""


def parse_preprocessing(spec: str, sampling_hz: float | None = None) -> list[dict[str, Any]]:
    """A comma-separated chain as SpikeInterface pipeline steps ({'name', 'kwargs'}), in
    order; 'none' (alone) is the empty chain. Frequencies must lie below half of
    `sampling_hz` where it is given.

    >>> [step["name"] for step in parse_preprocessing("highpass:250,cmr")]
    ['highpass_filter', 'common_reference']
    >>> parse_preprocessing("notch:50")
    [{'name': 'notch_filter', 'kwargs': {'freq': 50.0}}]
    >>> parse_preprocessing("none")
    []
    """
    parts = [p.strip() for p in spec.split(",")]
    if parts == ["none"]:
        return []
    steps = []
    for part in parts:
        name, _, value = part.partition(":")
        try:
            steps.append(_step(name.strip().lower(), value.strip(), sampling_hz))
        except PreprocessingError as error:
            raise PreprocessingError(f"preprocessing step {part!r}: {error}") from None
    return steps


def _step(name: str, value: str, sampling_hz: float | None) -> dict[str, Any]:
    if name not in STEPS or name == "none":
        raise PreprocessingError("steps are " + "; ".join(STEPS.values()))
    takes_value = name in ("highpass", "bandpass", "notch")
    if takes_value != bool(value):
        raise PreprocessingError(f"write it as {STEPS[name]}")
    if name in ("cmr", "car"):
        operator = "median" if name == "cmr" else "average"
        return {"name": "common_reference", "kwargs": {"reference": "global", "operator": operator}}
    if name == "whiten":
        return {"name": "whiten", "kwargs": {"mode": "global", "seed": 0}}
    form = f"write it as {STEPS[name]}, frequencies above 0"
    try:
        numbers = [float(v) for v in value.split("-")]
    except ValueError:
        raise PreprocessingError(form) from None
    if len(numbers) != (2 if name == "bandpass" else 1) or min(numbers) <= 0:
        raise PreprocessingError(form)
    if name == "bandpass" and numbers[0] >= numbers[1]:
        raise PreprocessingError("the low edge must lie below the high one")
    if sampling_hz is not None and max(numbers) >= sampling_hz / 2:
        raise PreprocessingError(
            f"frequencies must lie below {sampling_hz / 2:g} Hz, half the sampling rate"
        )
    if name == "highpass":
        return {"name": "highpass_filter", "kwargs": {"freq_min": numbers[0]}}
    if name == "notch":
        return {"name": "notch_filter", "kwargs": {"freq": numbers[0]}}
    return {"name": "bandpass_filter", "kwargs": {"freq_min": numbers[0], "freq_max": numbers[1]}}


def preprocess(recording: Recording, steps: list[dict[str, Any]]) -> Recording:
    """`recording` passed through SpikeInterface's pipeline `steps` (from
    parse_preprocessing), as a Recording of float32 µV read lazily; the same recording
    when `steps` is empty. Stimulation, electrodes and positions are kept."""
    if not steps:
        return recording
    from spikeinterface.preprocessing import apply_preprocessing_pipeline

    from .mea import lazy_spikeinterface

    processed = apply_preprocessing_pipeline(lazy_spikeinterface(recording), steps)
    return replace(recording, source=SpikeInterfaceSource(processed), gain_uv=1.0, offset_uv=None)


MATERIALISE_BLOCK = 1 << 18
"""Samples per channel preprocessed at a time when a recording is materialised."""
DISK_MARGIN = 2.0
"""A recording is materialised only where the temporary folder has this many times its
float32 size free."""


def materialised(
    recording: Recording, progress: Callable[[int, int], None] | None = None
) -> Recording:
    """`recording` (preprocessed, read lazily) computed once into a float32 file in the
    temporary folder, unlinked at once and read through a memory map, so that reading the
    same samples again (each sorted unit's observation reads the whole recording) costs no
    filtering. The same recording, read lazily, where the folder lacks DISK_MARGIN times
    samples × channels × 4 bytes free, or when it is read from memory already.
    `progress(done, samples)` as blocks are written."""
    if isinstance(recording.source, ArraySource):
        return recording
    size = recording.samples * recording.channels * 4
    folder = tempfile.gettempdir()
    if shutil.disk_usage(folder).free < DISK_MARGIN * size:
        return recording
    with tempfile.TemporaryFile(dir=folder) as handle:
        traces = np.memmap(handle, np.float32, "w+", shape=(recording.samples, recording.channels))
    for start in range(0, recording.samples, MATERIALISE_BLOCK):
        end = min(recording.samples, start + MATERIALISE_BLOCK)
        traces[start:end] = recording.get_traces(start, end)
        if progress:
            progress(end, recording.samples)
    return replace(recording, source=ArraySource(traces), gain_uv=1.0, offset_uv=None)


class SpikeInterfaceSource(TraceSource):
    """Samples read from a SpikeInterface recording (one segment), as float32."""

    def __init__(self, recording: Any) -> None:
        self.recording = recording

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        ids = self.recording.channel_ids[np.asarray(channels)]
        traces = self.recording.get_traces(start_frame=start, end_frame=end, channel_ids=ids)
        return np.asarray(traces, np.float32)
