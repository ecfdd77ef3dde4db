"""MaxWell MaxOne and MaxTwo HDF5 recordings read with h5py: samples a block at a time,
each routed channel from its own row, electrode ids and positions from the `mapping`
table, the compression filters the samples need checked before any sample is read, and
the stimulation pulse times of a MaxOne file's `bits` table.

The layouts (as neo's MaxwellRawIO and SpikeInterface's MaxwellEventExtractor read them):
a MaxOne file of `version` 20160704 holds `sig` (rows × frames, uint16: a row per routed
channel, and its last two rows the frame number's low and high 16 bits), `mapping`
(channel, electrode, x, y µm), `settings/lsb` (V per step) and `bits` (frameno, bits: the
digital inputs' state from each frame where it changed, 0 when all are low; a stimulation
protocol raises one at each pulse). Later versions keep each recording of a well under
`wells/<well>/<rec>/` (`groups/routed/raw`, `settings/sampling`, `lsb`, `mapping`),
their samples compressed by MaxWell's own HDF5 filter, a library MaxWell distributes
apart from any package: it must be on HDF5_PLUGIN_PATH. The open filters (Blosc, LZ4,
Zstd, Bitshuffle, …) come from hdf5plugin, which the [mea] extra installs; nothing is ever
downloaded."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..hdf5_storage import unwritten
from .recording import Recording, RecordingError, Stimulation, TraceSource, check_sampling_hz

LEGACY_VERSION = 20160704
"""The MaxOne layout with `sig`, `mapping` and `bits` at the file's root."""
LEGACY_SAMPLING_HZ = 20_000.0
"""A MaxOne file of the legacy layout states no rate: its amplifiers sample at 20 kHz."""
ADC_RANGE_V = 3.3
"""With `gain` instead of `lsb`, a step is 3.3 V / (1024 × gain) (neo's reading)."""
UNWRITTEN_ALLOWANCE_BYTES = 64 << 20
"""Samples the raw dataset may declare without storing them (bytes)."""


class MaxWellSource(TraceSource):
    """Blocks of the routed channels' rows of a MaxWell raw dataset (channels × frames,
    uint16; the file is opened per block)."""

    def __init__(self, path: Path, dataset: str, rows: np.ndarray) -> None:
        self.path, self.dataset, self.rows = path, dataset, rows

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        import h5py

        wanted = self.rows[np.asarray(channels, np.int64)]
        order = np.argsort(wanted, kind="stable")  # h5py reads rows in increasing order
        with _reading(self.path), h5py.File(self.path, "r") as handle:
            block = handle[self.dataset][np.unique(wanted), start:end]
        index = np.searchsorted(np.unique(wanted), wanted[order])
        out = np.empty((end - start, len(wanted)), np.float32)
        out[:, order] = block[index].T
        return out


def read_maxwell(
    path: str | os.PathLike[str], well: str = "well000", recording: str | None = None
) -> Recording:
    """The routed channels of one well's recording (`recording` None: the only one) in a
    MaxWell file: samples as stored times the step (`lsb`; unsigned, so the mid-code is a
    DC offset of about 3 mV, which hh-fit's preprocessing and the image's baseline remove),
    channels in `mapping` order, each read from its own row; electrode ids and positions
    (µm) from `mapping`; no stimulation (its pulse times: `bits_onsets`)."""
    import h5py

    path = Path(path)
    register_filters()
    with _reading(path):
        return _read(h5py.File(path, "r"), path, well, recording)


def _read(file: Any, path: Path, well: str, recording: str | None) -> Recording:
    """read_maxwell's reading of the open `file` (closed on return)."""
    with file:
        version = _version(file)
        if version == LEGACY_VERSION:
            group, rate = file, LEGACY_SAMPLING_HZ
            settings, mapping_path, dataset = file.get("settings"), "mapping", "sig"
        else:
            recording = _recording_name(file, path, well, recording)
            group = file[f"wells/{well}/{recording}"]
            settings, mapping_path = (
                group.get("settings"),
                f"wells/{well}/{recording}/settings/mapping",
            )
            if settings is None or "sampling" not in settings:
                raise RecordingError(f"{path}: field '{group.name}/settings/sampling': missing")
            rate = float(settings["sampling"][0])
            dataset = f"wells/{well}/{recording}/groups/routed/raw"
        if dataset not in file or mapping_path not in file:
            missing = dataset if dataset not in file else mapping_path
            raise RecordingError(f"{path}: field '{missing}': missing")
        raw, mapping = file[dataset], file[mapping_path][:]
        if raw.ndim != 2:
            raise RecordingError(f"{path}: field '{dataset}': {raw.ndim}-D; rows × frames")
        if reason := unwritten(raw, UNWRITTEN_ALLOWANCE_BYTES):
            raise RecordingError(f"{path}: field '{dataset}': {reason}")
        gain_uv = _step_uv(settings, path)
        rows_declared, frames = raw.shape
        check_filters(raw, path)
    routed = mapping[np.asarray(mapping["channel"]) >= 0]
    channels = np.asarray(routed["channel"], np.int64)
    if len(np.unique(channels)) != len(channels):
        raise RecordingError(f"{path}: field 'mapping': a channel listed twice")
    if len(channels) == 0 or channels.max() >= rows_declared:
        top = int(channels.max()) if len(channels) else -1
        raise RecordingError(
            f"{path}: field 'mapping': channel {top} of {rows_declared} rows in '{dataset}'"
        )
    positions = np.stack([routed["x"], routed["y"]], axis=1).astype(float)
    return Recording(
        MaxWellSource(path, dataset, channels),
        int(frames),
        check_sampling_hz(rate, str(path)),
        gain_uv,
        np.asarray(routed["electrode"], np.int64),
        positions,
        Stimulation.none(),
    )


def _recording_name(file: Any, path: Path, well: str, recording: str | None) -> str:
    """The recording of `well` to read: `recording`, or the well's only one."""
    wells = file.get("wells")
    if wells is None or well not in wells:
        have = ", ".join(wells) if wells is not None else "none"
        raise RecordingError(f"{path}: no well {well!r} (wells: {have})")
    names = sorted(wells[well])
    if recording is None:
        if len(names) != 1:
            raise RecordingError(f"{path}: {well} holds recordings {', '.join(names)}: name one")
        return names[0]
    if recording not in names:
        raise RecordingError(f"{path}: {well} has no recording {recording!r} ({', '.join(names)})")
    return recording


def _step_uv(settings: Any, path: Path) -> float:
    """µV per step: `lsb` (V), else 3.3 V / (1024 × `gain`)."""
    if settings is not None and "lsb" in settings:
        step = float(settings["lsb"][0]) * 1e6
    elif settings is not None and "gain" in settings:
        step = ADC_RANGE_V / (1024 * float(settings["gain"][0])) * 1e6
    else:
        raise RecordingError(f"{path}: field 'settings': neither 'lsb' nor 'gain'")
    if not np.isfinite(step) or step <= 0:
        raise RecordingError(f"{path}: field 'settings/lsb': {step:g} µV per step")
    return step


HDF5_ERRORS = (OSError, KeyError, ValueError, TypeError, IndexError, RuntimeError)
"""What h5py raises for a damaged file or an object of another kind than the layout's."""


@contextlib.contextmanager
def _reading(path: str | os.PathLike[str]) -> Iterator[None]:
    """h5py's errors while reading `path` as one RecordingError naming the file."""
    try:
        yield
    except RecordingError:
        raise
    except HDF5_ERRORS as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RecordingError(f"{path}: not a MaxWell file h5py can read ({first})") from None


def register_filters() -> None:
    """Make hdf5plugin's open filters available to h5py, where it is installed."""
    with contextlib.suppress(ImportError):
        import hdf5plugin  # noqa: F401  # registers its filters on import


def check_filters(raw: Any, path: str | os.PathLike[str]) -> None:
    """RecordingError, in one line, when a filter the samples of `raw` (an open h5py
    dataset of the file at `path`) were written through is not available to h5py (once
    register_filters has run), naming it."""
    import h5py

    plist = raw.id.get_create_plist()
    for index in range(plist.get_nfilters()):
        code, _, _, name = plist.get_filter(index)
        if h5py.h5z.filter_avail(code):
            continue
        label = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
        raise RecordingError(
            f"{path}: field '{raw.name.lstrip('/')}': compressed with HDF5 filter {code}"
            f"{f' ({label})' if label else ''}, which is not installed: MaxWell's own "
            "filter is their decompression library, put on HDF5_PLUGIN_PATH (it is not "
            "on PyPI, and substrates downloads nothing); open filters come with "
            "hdf5plugin (pip install 'substrates[mea]')"
        )


def bits_onsets(path: str | os.PathLike[str], sampling_hz: float) -> np.ndarray:
    """Pulse onsets (s from the first sample) in a MaxOne file's `bits` table: each frame
    where the digital inputs rise from all low, less the first sample's frame number
    (`sig`'s last two rows at column 0, low and high 16 bits). One line for a file
    without the table or with none."""
    import h5py

    with _reading(path), h5py.File(path, "r") as file:
        version = _version(file)
        if version != LEGACY_VERSION:
            raise RecordingError(
                f"{path}: MaxWell version {version} keeps its events in a layout this reader "
                "does not know; give the pulse times in a BIDS events.tsv's onset column"
            )
        if "bits" not in file:
            raise RecordingError(f"{path}: no 'bits' table: the file recorded no TTL events")
        bits = file["bits"][:]
        low, high = (int(v) for v in file["sig"][-2:, 0])
    first = (high << 16) | low
    with _reading(path):
        state = np.asarray(bits["bits"], np.int64)
        frameno = np.asarray(bits["frameno"], np.int64)
    before = np.concatenate([[0], state[:-1]])
    rising = (state != 0) & (before == 0)
    if not rising.any():
        raise RecordingError(f"{path}: field 'bits': no input ever goes high")
    frames = frameno[rising] - first
    return np.sort(frames) / sampling_hz


def _version(file: Any) -> int:
    """The `version` a MaxWell file states (RecordingError when it states none)."""
    if "version" not in file:
        raise RecordingError(f"{file.filename}: no 'version': not a MaxWell file")
    value = file["version"][0]
    return int(value.decode() if isinstance(value, bytes) else value)
