"""What an HDF5 dataset declares against what the file holds: HDF5 reads a chunk that was
never written as fill values and a contiguous dataset never allocated as zeros, so a file
of a few kilobytes can declare gigabytes. Readers of HDF5-based formats (DSEC events,
netCDF-4 link data) ask `unwritten` before they read a dataset whole.

    >>> import h5py, numpy as np, tempfile, pathlib
    >>> from substrates.datasets.hdf5_storage import unwritten
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "f.h5"
    >>> with h5py.File(path, "w") as handle:
    ...     empty = handle.create_dataset("empty", shape=(10**6,), dtype="f8", chunks=(1000,))
    ...     handle["full"] = np.zeros(10)
    ...     print(unwritten(empty))
    ...     print(unwritten(handle["full"]))
    declares 1,000,000 values in 1,000 chunks; 0 were written (the rest read as fill values)
    None
"""

from __future__ import annotations

import math
from typing import Any


def unwritten(dataset: Any, allowance_bytes: int = 0) -> str | None:
    """Why `dataset` (an h5py Dataset) declares values the file does not hold — stored
    outside it (virtual or external), chunks never written, a contiguous block not
    allocated — or None where every declared value is stored, or those missing would take
    at most `allowance_bytes` (a format where "never written" may mean "missing" allows
    some)."""
    import h5py

    if dataset.is_virtual or dataset.external:
        return "stored outside the file (virtual or external); not read"
    count = math.prod(dataset.shape or ())
    if count == 0:
        return None
    layout = dataset.id.get_create_plist().get_layout()
    if layout == h5py.h5d.CHUNKED:
        chunks = math.prod(
            -(-size // chunk) for size, chunk in zip(dataset.shape, dataset.chunks, strict=True)
        )
        written = dataset.id.get_num_chunks()
        chunk_bytes = math.prod(dataset.chunks) * dataset.dtype.itemsize
        if (chunks - written) * chunk_bytes > allowance_bytes:
            return (
                f"declares {count:,} values in {chunks:,} chunks; {written:,} were "
                "written (the rest read as fill values)"
            )
    elif layout == h5py.h5d.CONTIGUOUS:
        needed = count * dataset.dtype.itemsize
        stored = dataset.id.get_storage_size()
        if needed - stored > allowance_bytes:
            return f"declares {count:,} values ({needed:,} bytes), but {stored:,} bytes are stored"
    return None
