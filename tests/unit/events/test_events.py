"""The event container: Arrow and Parquet round trips keep every event and the sensor size;
windows by time or count match a plain loop over the events."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events.events import EventError, Events, read_parquet, write_parquet

from .test_files import random_events


def test_arrow_and_parquet_keep_events_and_sensor(tmp_path) -> None:
    events = random_events(5000, seed=7, width=346, height=260)
    again = Events.from_arrow(events.to_arrow())
    assert np.array_equal(again.array, events.array) and (again.width, again.height) == (346, 260)
    write_parquet(events, tmp_path / "e.parquet")
    back = read_parquet(tmp_path / "e.parquet")
    assert np.array_equal(back.array, events.array) and (back.width, back.height) == (346, 260)
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize("duration_us", [1_000, 250_000, 10_000_000])
def test_time_windows_match_a_plain_loop(duration_us) -> None:
    events = random_events(3000, seed=8, span_us=5_000_000)
    t0 = int(events.array["t"][0])
    expected: dict[int, list[int]] = {}
    for i, t in enumerate(events.array["t"]):
        expected.setdefault((int(t) - t0) // duration_us, []).append(i)
    chunks = list(events.windows(duration_us=duration_us))
    assert sum(len(c) for c in chunks) == len(events)
    nonempty = [c for c in chunks if len(c)]
    assert [len(c) for c in nonempty] == [len(v) for _, v in sorted(expected.items())]
    for k, chunk in enumerate(chunks):
        assert np.all((chunk.array["t"] - t0) // duration_us == k)


def test_count_windows_and_bad_requests() -> None:
    events = random_events(1003, seed=9)
    assert [len(c) for c in events.windows(count=250)] == [250, 250, 250, 250, 3]
    with pytest.raises(ValueError, match="exactly one"):
        next(events.windows())
    bad = events.array.copy()
    bad["p"][5] = 3
    with pytest.raises(EventError, match="event 5 has polarity 3"):
        Events(bad, 1280, 720).check()
    with pytest.raises(EventError, match="dtype"):
        Events(np.zeros(3), 4, 4)
