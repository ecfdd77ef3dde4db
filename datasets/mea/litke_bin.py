"""Litke raw `.bin` recordings (Vision's RawDataHeader512 layout).

Header: big-endian (uint32 tag, uint32 size) pairs, starting with tag 0 (size 4: the header
length in bytes, where the samples begin) and ending with tag 499 (size 4: the number of
samples). Between them: 1 time (uint32 time base, uint64 seconds), 2 comment, 3 format,
4 array (uint32 electrodes incl. the TTL channel, uint32 array id), 5 sampling frequency
(Hz), 7 dataset id, 6 / 8 triggers. Samples: per time step, electrode 0 (the TTL trigger
line) then the rest; two electrodes in 3 bytes as 12-bit values offset by 2048
(b0 = hi8(a), b1 = lo4(a)·16 + hi4(b), b2 = lo8(b)); with an odd electrode count the TTL
comes first as a 16-bit big-endian word. Read memory-mapped, unpacked by numba per chunk.

A dataset is often several files, `data000000.bin`, `data000001.bin`, … in one folder, the
header in the first only and the later ones plain samples; name the folder or its first
file. As bin2py does, a recording cut short (fewer whole samples than the data tag says) is
read as far as it goes, with a warning, and the deprecated trigger tag 6 is skipped as its
8 bytes whatever size an old file declares for it."""

from __future__ import annotations

import itertools
import logging
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from .recording import Recording, RecordingError, TraceSource

HEADER_LENGTH, TIME, COMMENT, FORMAT, ARRAY, FREQUENCY, TRIGGER, DATASET, TRIGGER_V2 = range(9)
DATA = 499
SIZES = {HEADER_LENGTH: 4, TIME: 12, FORMAT: 4, ARRAY: 8, FREQUENCY: 4, TRIGGER_V2: 16, DATA: 4}
TRIGGER_BYTES = 8
"""What tag 6 holds; old files declare other sizes for it (bin2py and Vision skip 8)."""
log = logging.getLogger("substrates")


@dataclass(frozen=True)
class LitkeHeader:
    """header_bytes: where samples start; electrodes: including the TTL channel."""

    header_bytes: int
    electrodes: int
    array_id: int
    sampling_hz: int
    samples: int
    comment: str
    dataset: str


MAX_ELECTRODES = 4096
"""Most electrodes (TTL included) a header may declare; Litke arrays have 513 or 520."""
MAX_SAMPLING_HZ = 1_000_000


def bytes_per_sample(electrodes: int) -> int:
    return 3 * electrodes // 2 if electrodes % 2 == 0 else 2 + 3 * (electrodes - 1) // 2


def read_header(data: bytes | np.ndarray, source: str) -> LitkeHeader:
    """Parse the tags; errors name the file and the tag."""
    view = memoryview(bytes(data[: 1 << 16]))
    fields: dict[int, bytes] = {}
    offset = 0
    while True:
        if offset + 8 > len(view):
            raise RecordingError(f"{source}: header ends inside a tag at byte {offset}")
        tag, size = struct.unpack(">II", view[offset : offset + 8])
        if offset == 0 and (tag, size) != (HEADER_LENGTH, 4):
            raise RecordingError(
                f"{source}: not a Litke .bin (first tag {tag}, not the header length)"
            )
        if tag in SIZES and size != SIZES[tag]:
            raise RecordingError(f"{source}: tag {tag} has size {size}, expected {SIZES[tag]}")
        if tag == TRIGGER:
            size = TRIGGER_BYTES
        fields[tag] = bytes(view[offset + 8 : offset + 8 + size])
        offset += 8 + size
        if tag == DATA:
            break
    for tag, name in ((ARRAY, "array"), (FREQUENCY, "frequency")):
        if tag not in fields:
            raise RecordingError(f"{source}: header has no {name} tag ({tag})")
    (header_bytes,) = struct.unpack(">I", fields[HEADER_LENGTH])
    electrodes, array_id = struct.unpack(">II", fields[ARRAY])
    (frequency,) = struct.unpack(">I", fields[FREQUENCY])
    (samples,) = struct.unpack(">I", fields[DATA])
    if not 2 <= electrodes <= MAX_ELECTRODES:
        raise RecordingError(
            f"{source}: field 'array': {electrodes} electrodes (with the TTL "
            f"channel); a Litke array has 2 to {MAX_ELECTRODES}"
        )
    if not 1 <= frequency <= MAX_SAMPLING_HZ:
        raise RecordingError(
            f"{source}: field 'frequency': {frequency} Hz; expected 1 to {MAX_SAMPLING_HZ:,}"
        )
    if header_bytes < offset:
        raise RecordingError(
            f"{source}: field 'header length': {header_bytes} bytes, but the "
            f"tags run to byte {offset}"
        )
    text = {k: fields.get(k, b"").decode("utf-8", "replace") for k in (COMMENT, DATASET)}
    return LitkeHeader(
        header_bytes, electrodes, array_id, frequency, samples, text[COMMENT], text[DATASET]
    )


@njit(cache=True)
def _unpack(buffer, electrodes, out):
    """buffer: whole samples; out (samples, electrodes) int16."""
    step = 3 * electrodes // 2 if electrodes % 2 == 0 else 2 + 3 * (electrodes - 1) // 2
    for i in range(out.shape[0]):
        k = i * step
        first = 0
        if electrodes % 2 == 1:
            out[i, 0] = np.int16((np.int32(buffer[k]) << 8) | np.int32(buffer[k + 1]))
            k += 2
            first = 1
        for j in range(first, electrodes, 2):
            b0, b1, b2 = np.int32(buffer[k]), np.int32(buffer[k + 1]), np.int32(buffer[k + 2])
            out[i, j] = np.int16(((b0 << 4) | (b1 >> 4)) - 2048)
            out[i, j + 1] = np.int16((((b1 & 0xF) << 8) | b2) - 2048)
            k += 3


class LitkeSource(TraceSource):
    """Packed samples of a dataset's files, memory-mapped; channel c is electrode c + 1.
    `starts[k]` is the first sample of file k (the last entry: the samples read)."""

    def __init__(
        self, files: list[np.ndarray], header: LitkeHeader, held: list[int], samples: int
    ) -> None:
        """held: whole samples in each file; samples: how many of them are read."""
        self.files, self.header = files, header
        self.step = bytes_per_sample(header.electrodes)
        self.starts = np.minimum(np.concatenate([[0], np.cumsum(held)]), samples)

    def unpack(self, start: int, end: int) -> np.ndarray:
        """Samples [start, end) of every electrode, TTL line first (int16 ADC units)."""
        if not 0 <= start <= end <= self.starts[-1]:
            raise IndexError(f"samples [{start}, {end}) outside [0, {self.starts[-1]})")
        out = np.empty((end - start, self.header.electrodes), np.int16)
        for k, data in enumerate(self.files):
            lo, hi = max(start, int(self.starts[k])), min(end, int(self.starts[k + 1]))
            if lo >= hi:
                continue
            first = (self.header.header_bytes if k == 0 else 0) + (lo - self.starts[k]) * self.step
            buffer = data[first : first + (hi - lo) * self.step]
            if len(buffer) != (hi - lo) * self.step:  # the numba loop reads unchecked
                raise IndexError(f"file {k} holds {len(buffer)} bytes of {hi - lo} samples")
            _unpack(buffer, self.header.electrodes, out[lo - start : hi - start])
        return out

    def block(self, start: int, end: int, channels: np.ndarray) -> np.ndarray:
        return self.unpack(start, end)[:, channels + 1]

    def ttl(self) -> np.ndarray:
        """The TTL line (electrode 0) of every sample read, int16 ADC units, decoded from
        its own bytes of each sample (the other electrodes are not unpacked)."""
        parts = []
        for k, data in enumerate(self.files):
            count = int(self.starts[k + 1] - self.starts[k])
            if count <= 0:
                continue
            first = self.header.header_bytes if k == 0 else 0
            end = first + count * self.step
            b0 = np.asarray(data[first : end : self.step], np.int32)
            b1 = np.asarray(data[first + 1 : end : self.step], np.int32)
            if self.header.electrodes % 2:  # a 16-bit big-endian word
                parts.append(((b0 << 8) | b1).astype(np.uint16).view(np.int16))
            else:
                parts.append((((b0 << 4) | (b1 >> 4)) - 2048).astype(np.int16))
        return np.concatenate(parts) if parts else np.zeros(0, np.int16)


def dataset_files(path: Path) -> list[Path]:
    """The files of the dataset at `path`: a folder's .bin files in name order, or the one
    file (read_litke adds the files after it when its header declares more samples than
    it holds)."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".bin" and p.is_file())
        if not files:
            raise RecordingError(f"{path}: a folder without .bin files")
        return files
    if not path.is_file():
        raise RecordingError(f"{path}: no such file or folder")
    return [path]


def read_dataset_header(path: str | os.PathLike[str]) -> LitkeHeader:
    """The header of a .bin file or of a dataset folder's first file."""
    first = dataset_files(Path(path))[0]
    return read_header(_memmap(first), str(first))


def _continuations(first: Path) -> list[Path]:
    """The files that continue `first` when it is the first of a dataset: data000000.bin
    is followed by data000001.bin, data000002.bin, … (same stem, numbers in a row), up to
    one that starts with a header of its own (another recording)."""
    named = re.fullmatch(r"(.*?)(\d+)\.bin", first.name)
    if named is None:
        return []
    stem, digits = named.groups()
    found: list[Path] = []
    for number in itertools.count(int(digits) + 1):
        following = first.with_name(f"{stem}{number:0{len(digits)}d}.bin")
        if not following.is_file():
            return found
        with following.open("rb") as handle:
            if handle.read(8) == struct.pack(">II", HEADER_LENGTH, 4):
                return found
        found.append(following)
    return found


def _memmap(path: Path) -> np.ndarray:
    return np.memmap(path, np.uint8, "r") if path.stat().st_size else np.zeros(0, np.uint8)


def read_litke(
    path: str | os.PathLike[str], positions_um: np.ndarray, gain_uv: float
) -> tuple[Recording, LitkeSource]:
    """The recording (electrodes 1..n − 1; the TTL line stays in the source) of a .bin file,
    or of a dataset folder (or its first file) of several. `positions_um` must have one
    row per recorded electrode; `gain_uv` is µV per ADC unit (the file does not store it)."""
    path = Path(path)
    if not gain_uv > 0:
        raise RecordingError(f"{path}: gain_uv must be positive µV per ADC unit, got {gain_uv}")
    files = dataset_files(path)
    first = _memmap(files[0])
    header = read_header(first, str(files[0]))
    if header.header_bytes > len(first):
        raise RecordingError(
            f"{files[0]}: field 'header length': {header.header_bytes:,} bytes, but the file "
            f"holds {len(first):,}"
        )
    step = bytes_per_sample(header.electrodes)
    if len(files) == 1 and (len(first) - header.header_bytes) // step < header.samples:
        files += _continuations(files[0])
    maps = [first, *(_memmap(p) for p in files[1:])]
    bodies = [len(m) - (header.header_bytes if k == 0 else 0) for k, m in enumerate(maps)]
    if any(b % step for b in bodies[:-1]):
        bad = next(p for p, b in zip(files, bodies, strict=False) if b % step)
        raise RecordingError(
            f"{bad}: holds a part of a sample ({step} bytes each) before the dataset's last file"
        )
    per_file = [b // step for b in bodies]
    held = sum(per_file)
    if held == 0 and header.samples:
        raise RecordingError(
            f"{path}: truncated: the data tag says {header.samples} samples "
            f"of {header.electrodes} electrodes ({step} bytes each); the "
            "dataset holds none"
        )
    if held < header.samples:
        log.warning(
            "%s: interrupted recording: %s whole samples of the %s the header "
            "declares (%.3f s of %.3f s); reading those",
            path,
            f"{held:,}",
            f"{header.samples:,}",
            held / header.sampling_hz,
            header.samples / header.sampling_hz,
        )
    samples = min(held, header.samples)
    positions = np.asarray(positions_um, np.float64)
    if positions.shape != (header.electrodes - 1, 2):
        raise RecordingError(
            f"{path}: field 'array': {header.electrodes - 1} electrodes "
            f"(besides TTL), but the geometry has {len(positions)}"
        )
    source = LitkeSource(maps, header, per_file, samples)
    recording = Recording(
        source,
        samples,
        float(header.sampling_hz),
        gain_uv,
        np.arange(1, header.electrodes),
        positions,
    )
    return recording, source
