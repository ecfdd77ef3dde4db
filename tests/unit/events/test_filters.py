"""Noise filters: the background-activity filter keeps exactly the events dv-processing's
BackgroundActivityNoiseFilter keeps; both filters equal a brute-force reading of their
rule; filtering window by window equals filtering whole."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from substrates.datasets.events.events import EVENT_DTYPE
from substrates.datasets.events.filters import BackgroundActivityFilter, RefractoryFilter


def noisy_edges(seed: int, n: int = 20_000, width: int = 64, height: int = 48) -> np.ndarray:
    """Half the events along a moving edge (supported), half uniform noise; times start
    after 10 ms so that no filter's treatment of never-fired pixels matters."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(10_000, 1_010_000, n))
    edge = rng.random(n) < 0.5
    x = np.where(edge, ((t - 10_000) * 6e-5).astype(int) % width, rng.integers(0, width, n))
    y = rng.integers(0, height, n)
    events = np.empty(n, EVENT_DTYPE)
    events["t"], events["x"], events["y"], events["p"] = t, x, y, rng.integers(0, 2, n)
    return events


def brute_force(events: np.ndarray, rule: str, span_us: int) -> np.ndarray:
    """The rules read literally, event by event over all earlier events."""
    keep = np.zeros(len(events), bool)
    for i, e in enumerate(events):
        earlier = events[:i]
        dx = np.abs(earlier["x"].astype(np.int64) - int(e["x"]))
        dy = np.abs(earlier["y"].astype(np.int64) - int(e["y"]))
        recent = e["t"] - earlier["t"] < span_us
        if rule == "background":
            keep[i] = np.any(recent & (dx <= 1) & (dy <= 1) & ((dx + dy) > 0) & _latest(earlier, i))
        else:
            keep[i] = not np.any(recent & (dx == 0) & (dy == 0))
    return keep


def _latest(earlier: np.ndarray, _: int) -> np.ndarray:
    """Which earlier events are their pixel's latest (a time surface holds only those)."""
    latest = np.zeros(len(earlier), bool)
    seen = set()
    for j in range(len(earlier) - 1, -1, -1):
        pixel = (int(earlier["x"][j]), int(earlier["y"][j]))
        if pixel not in seen:
            seen.add(pixel)
            latest[j] = True
    return latest


def test_background_activity_keeps_what_dv_processing_keeps() -> None:
    dv = pytest.importorskip("dv_processing")
    events = noisy_edges(1)
    store = dv.EventStore()
    for t, x, y, p in zip(*(events[k].tolist() for k in "txyp"), strict=True):
        store.push_back(t, x, y, bool(p))
    theirs = dv.noise.BackgroundActivityNoiseFilter(
        (64, 48), backgroundActivityDuration=datetime.timedelta(microseconds=2000)
    )
    theirs.accept(store)
    kept = theirs.generateEvents().numpy()
    ours = events[BackgroundActivityFilter(64, 48, 2000).keep(events)]
    assert 0.2 < len(ours) / len(events) < 0.9
    assert len(ours) == len(kept)
    for ours_name, their_name in (("t", "timestamp"), ("x", "x"), ("y", "y")):
        assert np.array_equal(ours[ours_name].astype(np.int64), kept[their_name].astype(np.int64))


@pytest.mark.parametrize(("rule", "span"), [("background", 3000), ("refractory", 20_000)])
def test_filters_equal_their_rule_read_literally(rule: str, span: int) -> None:
    events = noisy_edges(2, n=2_500, width=24, height=16)
    made = (
        BackgroundActivityFilter(24, 16, span)
        if rule == "background"
        else RefractoryFilter(24, 16, span)
    )
    ours = made.keep(events)
    assert 0.05 < ours.mean() < 0.95
    assert np.array_equal(ours, brute_force(events, rule, span))


def test_window_by_window_equals_whole() -> None:
    events = noisy_edges(3)
    for make in (
        lambda: BackgroundActivityFilter(64, 48, 2000),
        lambda: RefractoryFilter(64, 48, 5000),
    ):
        whole = make().keep(events)
        streaming = make()
        parts = np.concatenate([streaming.keep(part) for part in np.array_split(events, 7)])
        assert np.array_equal(parts, whole)


def test_a_non_positive_span_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        BackgroundActivityFilter(10, 10, 0)
    with pytest.raises(ValueError, match="positive"):
        RefractoryFilter(10, 10, -5)


def test_events_file_applies_the_filters_its_options_name(tmp_path) -> None:
    from substrates.backends.registry import create_backend
    from substrates.datasets.events.events import Events
    from substrates.datasets.events.files import write_events

    events = noisy_edges(4)
    write_events(Events(events, 64, 48), tmp_path / "a.raw")
    options = {
        "path": str(tmp_path / "a.raw"),
        "background_activity_us": 2000,
        "refractory_us": 500,
    }
    served = np.concatenate(
        [w.array for w in create_backend("events.file", options).packets(100_000)]
    )
    kept = events[BackgroundActivityFilter(64, 48, 2000).keep(events)]
    kept = kept[RefractoryFilter(64, 48, 500).keep(kept)]
    assert 0 < len(served) < len(events) and np.array_equal(served, kept)
