"""events.file on files written by expelliarmus and by us, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.events.events import write_parquet
from substrates.errors import BackendUnavailableError, SubstratesError

from .test_files import as_expelliarmus, random_events

expelliarmus = pytest.importorskip("expelliarmus")


def test_an_expelliarmus_dat_file_is_served_in_windows(tmp_path) -> None:
    events = random_events(20_000, seed=11, span_us=1_000_000, width=640, height=480)
    expelliarmus.Wizard(encoding="dat").save(tmp_path / "r.dat", as_expelliarmus(events))
    source = create_backend(
        "events.file", {"path": str(tmp_path / "r.dat"), "width": 640, "height": 480}
    )
    caps = source.capabilities
    assert (caps.width, caps.height, caps.live) == (640, 480, False)
    packets = list(source.packets(100_000))
    assert np.array_equal(np.concatenate([p.array for p in packets]), events.array)
    first = list(source.packets(100_000, limit_us=250_000))
    assert len(first) == 3 and all(
        p.array["t"].max() < events.array["t"][0] + 250_000 for p in first if len(p)
    )


def test_parquet_and_the_shipped_example(tmp_path) -> None:
    events = random_events(500, seed=12, width=32, height=32)
    write_parquet(events, tmp_path / "e.parquet")
    served = create_backend("events.file", {"path": str(tmp_path / "e.parquet")})
    assert served.capabilities.width == 32 and len(next(served.packets(10**9))) == 500
    example = create_backend("events.file")
    assert (example.capabilities.width, example.capabilities.height) == (128, 96)


def test_missing_and_corrupt_files_are_refused(tmp_path) -> None:
    with pytest.raises(BackendUnavailableError, match="no event file at"):
        create_backend("events.file", {"path": str(tmp_path / "none.raw")})
    (tmp_path / "cut.raw").write_bytes(b"% evt 3.0\n\x00\x00\x00")
    source = create_backend("events.file", {"path": str(tmp_path / "cut.raw")})
    with pytest.raises(SubstratesError, match="cut word stream"):
        _ = source.capabilities  # reading the file is what fails
