"""Event datasets distributed as one file a sample in folders named by class, read from disk
only (nothing is downloaded) and converted as tonic converts them:

| dataset | files | sensor | a sample |
|---|---|---|---|
| `nmnist`, `ncaltech101` | `.bin` | 34 × 34, 240 × 180 | 5-byte ATIS events (nmnist.py) |
| `cifar10dvs` | `.aedat4` | 128 × 128 | the file's event stream (aedat4.py) |
| `dvs_lip` | `.npy` | 128 × 128 | a structured array with fields x, y, p, t (µs) |
| `asl_dvs` | `.mat` | 240 × 180 | MATLAB arrays ts (µs), x, y, pol; y counted from the bottom |
| `poker_dvs` | `.npy` | 35 × 35 | an N × 4 array of t (µs), x, y, p columns |

The class is the name of the folder holding the file (POKER-DVS's: its last two letters,
`pips_train/cl` → `cl`). DVS-Lip's and POKER-DVS's train/test splits are folders of their
own (`DVS-Lip/train`, `pips_test`): give that folder as the root.

Example:
    >>> import tempfile, numpy as np
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "he").mkdir()
    >>> np.save(root / "he" / "0.npy", np.array([[5, 3, 4, 1], [9, 0, 34, 0]]))  # t x y p
    >>> [(label, events.array[["t", "x", "y", "p"]].tolist()) for events, label in
    ...  samples(root, "poker_dvs")]
    [('he', [(5, 3, 4, 1), (9, 0, 34, 0)])]
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .events import EVENT_DTYPE, EventError, Events, whole_numbers


@dataclass(frozen=True)
class Layout:
    """How a dataset stores a sample: file suffix, sensor (width, height), and a reader
    returning the sample's (t, x, y, p) columns."""

    suffix: str
    sensor: tuple[int, int]
    columns: Callable[[Path], tuple[np.ndarray, ...]]
    label: Callable[[Path], str] = lambda path: path.parent.name


def _columns(events: Events) -> tuple[np.ndarray, ...]:
    a = events.array
    return a["t"], a["x"], a["y"], a["p"]


def _nmnist(dataset: str) -> Callable[[Path], tuple[np.ndarray, ...]]:
    def columns(path: Path) -> tuple[np.ndarray, ...]:
        from .nmnist import read_nmnist

        return _columns(read_nmnist(path, dataset))

    return columns


def _aedat4(path: Path) -> tuple[np.ndarray, ...]:
    from .aedat4 import read_aedat4

    return _columns(read_aedat4(path))


def _npy(path: Path) -> np.ndarray:
    """The array of a .npy file, memory-mapped (a header declaring more than the file holds
    is refused, not allocated); numpy's parser meets hostile bytes with many exception
    types, each a damaged file here."""
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except Exception as error:  # a third-party parser on untrusted bytes
        raise _damaged(path, ".npy", error) from None


def _damaged(path: Path, kind: str, error: Exception) -> EventError:
    lines = str(error).splitlines()
    return EventError(
        f"{path}: not a readable {kind} file ({type(error).__name__}"
        f"{': ' + lines[0] if lines else ''})"
    )


def _fields(path: Path) -> tuple[np.ndarray, ...]:
    array = _npy(path)
    missing = {"x", "y", "p", "t"} - set(array.dtype.names or ())
    if missing:
        raise EventError(
            f"{path}: a structured array with fields x, y, p, t expected; "
            f"{', '.join(sorted(missing))} missing"
        )
    return array["t"], array["x"], array["y"], array["p"]


MAX_MAT_BYTES = 256 << 20
"""What the arrays of one MATLAB sample may declare in all, uncompressed (bytes): an ASL-DVS
sample holds a few hundred kilobytes; a 1.5 MB compressed file can declare gigabytes."""


def _matlab(path: Path) -> tuple[np.ndarray, ...]:
    from scipy.io import loadmat, whosmat

    try:
        declared = whosmat(path)  # names, shapes and classes, from the headers alone
        total = sum(math.prod(shape) * _itemsize(kind) for _, shape, kind in declared)
        if total > MAX_MAT_BYTES:
            name, shape, kind = max(declared, key=lambda v: math.prod(v[1]) * _itemsize(v[2]))
            raise EventError(
                f"{path}: field {name!r}: declares {math.prod(shape):,} {kind} values; the "
                f"arrays would take {total:,} bytes, more than the {MAX_MAT_BYTES:,} a "
                "sample is read into (MAX_MAT_BYTES)"
            )
        content = loadmat(path)
    except EventError:
        raise
    except Exception as error:  # scipy's parser meets hostile bytes with any type
        raise _damaged(path, "MATLAB", error) from None
    missing = {"ts", "x", "y", "pol"} - set(content)
    if missing:
        raise EventError(
            f"{path}: MATLAB arrays ts, x, y, pol expected; {', '.join(sorted(missing))} missing"
        )
    height = DATASETS["asl_dvs"].sensor[1]
    t, x, y, p = (
        whole_numbers(np.ravel(content[k]), str(path), k) for k in ("ts", "x", "y", "pol")
    )
    return t, x, height - 1 - y, p


def _itemsize(kind: str) -> int:
    """Bytes per value of a MATLAB class as whosmat names it (8 where it names no dtype)."""
    try:
        return int(np.dtype(kind).itemsize)
    except TypeError:
        return 8


def _table(path: Path) -> tuple[np.ndarray, ...]:
    array = _npy(path)
    if array.ndim != 2 or array.shape[1] != 4:
        raise EventError(f"{path}: an N × 4 array of t, x, y, p expected; shape {array.shape}")
    return tuple(array.T)


DATASETS: dict[str, Layout] = {
    "nmnist": Layout(".bin", (34, 34), _nmnist("nmnist")),
    "ncaltech101": Layout(".bin", (240, 180), _nmnist("ncaltech101")),
    "cifar10dvs": Layout(".aedat4", (128, 128), _aedat4),
    "dvs_lip": Layout(".npy", (128, 128), _fields),
    "asl_dvs": Layout(".mat", (240, 180), _matlab),
    "poker_dvs": Layout(".npy", (35, 35), _table, lambda path: path.parent.name[-2:]),
}


def _layout(dataset: str, where: Path) -> Layout:
    if dataset not in DATASETS:
        raise EventError(f"{where}: dataset {dataset!r}; known: {', '.join(DATASETS)}")
    return DATASETS[dataset]


def read_sample(path: str | os.PathLike[str], dataset: str) -> Events:
    """The events of one sample file of `dataset` (a key of DATASETS) on its sensor; events
    outside it, times going backwards, polarities other than 0/1 or a file that is not the
    dataset's kind are one line naming the file."""
    path = Path(path)
    layout = _layout(dataset, path)
    try:
        t, x, y, p = (
            whole_numbers(c, str(path), name)
            for c, name in zip(layout.columns(path), "txyp", strict=True)
        )
    except EventError:
        raise
    except (TypeError, ValueError) as error:  # columns that are no numbers
        raise EventError(f"{path}: not a {dataset} sample ({error})") from None
    if not t.size == x.size == y.size == p.size:
        raise EventError(
            f"{path}: columns of different lengths (t {t.size}, x {x.size}, y {y.size}, p {p.size})"
        )
    width, height = layout.sensor
    outside = np.flatnonzero((x < 0) | (y < 0) | (x >= width) | (y >= height))
    if outside.size:  # checked before the 16-bit coordinates could wrap
        i = int(outside[0])
        raise EventError(
            f"{path}: event {i} at x={x[i]}, y={y[i]} lies outside the "
            f"{width}×{height} sensor ({outside.size} such events)"
        )
    bad = np.flatnonzero((p != 0) & (p != 1))
    if bad.size:
        raise EventError(f"{path}: event {int(bad[0])} has polarity {p[bad[0]]}")
    array = np.empty(t.size, EVENT_DTYPE)
    array["t"], array["x"], array["y"], array["p"] = t, x, y, p
    return Events(array, width, height).check(str(path))  # time going backwards


def samples(root: str | os.PathLike[str], dataset: str) -> Iterator[tuple[Events, str]]:
    """(events, class name) of every sample file below `root`, in sorted order; one line
    when there are none."""
    root = Path(root)
    layout = _layout(dataset, root)
    files = sorted(root.rglob(f"*{layout.suffix}"))
    if not files:
        raise EventError(
            f"{root}: no {layout.suffix} sample files below it ({dataset} "
            "expected; nothing is downloaded)"
        )
    for path in files:
        yield read_sample(path, dataset), layout.label(path)
