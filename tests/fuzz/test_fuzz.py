"""Every reader, fuzzed: random bytes, every truncation of a valid file, header mutations
and declared sizes of 10^12 must be read or refused with the reader's own error type —
never another exception, never more than MEMORY of address space (RLIMIT_AS) or a minute
per input. Inputs that once broke a reader are kept in corpus/ and replayed first."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
MEMORY = 4 << 30
READERS = [
    "config",
    "grid",
    "qasm",
    "qpy",
    "fg",
    "uai",
    "sbml",
    "sbml_antimony",
    "bif",
    "xmlbif",
    "evt2",
    "evt3",
    "dat",
    "hdf5",
    "aedat3",
    "aedat4",
    "dvs_lip",
    "asl_dvs",
    "litke",
    "nwb",
    "maxwell",
    "opensense",
    "openmrg",
]


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize("reader", READERS)
def test_the_reader_refuses_what_it_cannot_read_with_its_own_error(reader: str) -> None:
    result = subprocess.run(
        [sys.executable, str(HERE / "fuzz_worker.py"), reader],
        capture_output=True,
        text=True,
        timeout=900,
        preexec_fn=_limited,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
