"""events.camera: the windows of a live stream, checked on a dv-processing recording (the
camera's own reader interface) against events.file reading the same file with `aedat`;
the neuromorphic-drivers packet layout; and, with no camera attached, the reason."""

from __future__ import annotations

import types

import numpy as np
import pytest

from substrates.backends.events.camera import attached_cameras, nd_batches, windows
from substrates.backends.registry import create_backend
from substrates.datasets.events.events import EVENT_DTYPE
from substrates.errors import BackendUnavailableError

from .test_files import random_events


def test_windows_of_batches_equal_cutting_the_whole_stream() -> None:
    events = random_events(5000, seed=21, span_us=1_000_000, width=64, height=48).array
    events["t"] += 123_456  # the first window starts at the first event
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, len(events)), 40, replace=False))
    batches = [None, *np.split(events, cuts), None]
    got = list(windows(batches, 64, 48, 100_000, None))
    edges = events["t"][0] + 100_000 * np.arange(len(got) + 1)
    for k, window in enumerate(got):
        inside = (events["t"] >= edges[k]) & (events["t"] < edges[k + 1])
        assert np.array_equal(window.array, events[inside])
    assert sum(len(w) for w in got) == len(events)  # the last window holds the rest
    limited = list(windows(np.split(events, cuts), 64, 48, 100_000, 250_000))
    assert len(limited) == 3 and limited[-1].array["t"].max() < edges[3]


def test_a_dv_processing_recording_read_as_the_camera_is_equals_events_file(tmp_path) -> None:
    dv = pytest.importorskip("dv_processing")
    from substrates.backends.events.camera import dv_batches
    from substrates.datasets.events.aedat4 import write_aedat4

    events = random_events(20_000, seed=22, span_us=2_000_000, width=346, height=260)
    write_aedat4(events, tmp_path / "r.aedat4")
    reader = dv.io.MonoCameraRecording(str(tmp_path / "r.aedat4"))  # the CameraCapture API
    live = list(windows(dv_batches(reader), 346, 260, 200_000, None))
    source = create_backend("events.file", {"path": str(tmp_path / "r.aedat4")})
    served = list(source.packets(200_000))
    assert len(live) == len(served) > 5
    for ours, theirs in zip(live, served, strict=True):
        assert np.array_equal(ours.array, theirs.array)


def test_neuromorphic_drivers_polarity_events_become_our_events() -> None:
    """The layout neuromorphic-drivers gives its packets' polarity_events (t u64 µs, x u16,
    y u16, on bool); packets without them (IMU, triggers only) are skipped."""
    layout = np.dtype([("t", "<u8"), ("x", "<u2"), ("y", "<u2"), ("on", "?")])
    raw = np.zeros(4, layout)
    raw["t"], raw["x"], raw["y"], raw["on"] = (
        [5, 6, 9, 12],
        [1, 1279, 3, 0],
        [0, 2, 719, 4],
        [True, False, True, False],
    )
    status = None
    packets = [
        (status, types.SimpleNamespace(polarity_events=None)),
        (status, types.SimpleNamespace(polarity_events=raw)),
    ]
    batches = list(nd_batches(packets))
    assert batches[0] is None and batches[1].dtype == EVENT_DTYPE
    for ours, theirs in (("t", "t"), ("x", "x"), ("y", "y"), ("p", "on")):
        assert np.array_equal(batches[1][ours], raw[theirs].astype(batches[1][ours].dtype))


@pytest.mark.parametrize("driver", ["dv-processing", "neuromorphic-drivers"])
def test_without_a_camera_attached_the_camera_backend_says_so(driver) -> None:
    from substrates.backends.events.camera import MODULES, NoCameraAccess

    pytest.importorskip(MODULES[driver])
    try:
        if attached_cameras(driver):
            pytest.skip("a camera is attached to this machine")
    except NoCameraAccess:
        pass  # no USB here at all: the backend says that instead
    with pytest.raises(BackendUnavailableError, match="no camera"):
        create_backend("events.camera", {"driver": driver})
