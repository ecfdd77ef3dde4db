"""Event files streamed chunk by chunk equal the same files read whole, for files written by
expelliarmus and by us in every encoding, windows cut as a whole recording is cut; seeking
by time; errors in a late chunk name the same byte; a 2 GB file streams in bounded memory."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from substrates.datasets.events.events import EventError, Events
from substrates.datasets.events.files import read_events, write_events
from substrates.datasets.events.stream import EventStream

from .test_files import random_events as uniform_events


def random_events(n: int, seed: int) -> Events:
    """Events over 3 s of a 640 × 480 sensor."""
    return uniform_events(n, seed, span_us=3_000_000, width=640, height=480)


def streamed_like_whole(path, **sensor) -> None:
    whole, info = read_events(path, **sensor)
    stream = EventStream(path, chunk_events=3_001, **sensor)  # many chunks, odd boundaries
    assert len(stream.chunks) > 10 and stream.events == len(whole)
    assert (stream.width, stream.height) == (whole.width, whole.height)
    assert stream.info == info
    for window, limit in ((50_000, None), (333_333, 1_000_000), (7_000, 40_000)):
        ours = list(stream.windows(window, limit))
        t = whole.array["t"]
        cut = (
            whole
            if limit is None
            else Events(whole.array[t < t[0] + limit], whole.width, whole.height)
        )
        theirs = list(cut.windows(duration_us=window))
        assert len(ours) == len(theirs)
        assert all(np.array_equal(a.array, b.array) for a, b in zip(ours, theirs, strict=True))
    t = whole.array["t"]
    for start, end in ((0, 10), (123_456, 1_234_567), (int(t[-1]), int(t[-1]) + 1)):
        expected = whole.array[(t >= start) & (t < end)]
        assert np.array_equal(stream.window(start, end).array, expected)
    later = list(stream.windows(100_000, start_us=2_000_000))
    assert np.array_equal(np.concatenate([w.array for w in later]), whole.array[t >= 2_000_000])


@pytest.mark.parametrize(
    ("encoding", "name"), [("evt2", "a.raw"), ("evt3", "a.raw"), ("dat", "a.dat")]
)
def test_files_written_by_expelliarmus_stream_as_they_read_whole(tmp_path, encoding, name) -> None:
    """expelliarmus' EVT 3.0 leaves TIME_HIGH out, so the time's high part is inferred from
    TIME_LOW wrapping: the state carried from chunk to chunk keeps that inference too."""
    expelliarmus = pytest.importorskip("expelliarmus")
    events = random_events(40_000, seed=3)
    layout = np.dtype([("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "u1")])
    theirs = np.empty(len(events), layout)
    for k in "txyp":
        theirs[k] = events.array[k]
    expelliarmus.Wizard(encoding=encoding).save(tmp_path / name, theirs)
    streamed_like_whole(tmp_path / name, width=640, height=480)


@pytest.mark.parametrize("encoding", ["evt2", "evt21", "evt3"])
def test_our_raw_files_stream_as_they_read_whole(tmp_path, encoding) -> None:
    events = random_events(40_000, seed=4)
    write_events(events, tmp_path / "a.raw", encoding)
    streamed_like_whole(tmp_path / "a.raw")


def test_a_corrupt_word_in_a_late_chunk_is_named_by_its_byte(tmp_path) -> None:
    write_events(random_events(30_000, seed=5), tmp_path / "ok.raw", "evt2")
    data = bytearray((tmp_path / "ok.raw").read_bytes())
    at = data.index(b"% end\n") + len(b"% end\n") + 4 * 25_000
    data[at : at + 4] = np.array([0x3 << 28], "<u4").tobytes()
    (tmp_path / "bad.raw").write_bytes(bytes(data))
    with pytest.raises(EventError, match=f"corrupt data at byte {at}: word type") as whole:
        read_events(tmp_path / "bad.raw")
    with pytest.raises(EventError) as streamed:
        EventStream(tmp_path / "bad.raw", chunk_events=1_000)
    assert str(streamed.value) == str(whole.value)


def test_an_event_outside_the_header_sensor_is_named_from_its_chunk(tmp_path) -> None:
    events = random_events(20_000, seed=6)
    write_events(events, tmp_path / "a.raw", "evt2")
    data = bytearray((tmp_path / "a.raw").read_bytes())
    data = data.replace(b"width=640;height=480", b"width=640;height=470")
    (tmp_path / "small.raw").write_bytes(bytes(data.replace(b"640x480", b"640x470")))
    with pytest.raises(EventError) as whole:
        read_events(tmp_path / "small.raw")
    with pytest.raises(EventError) as streamed:
        EventStream(tmp_path / "small.raw", chunk_events=1_000)
    assert str(streamed.value) == str(whole.value)


BIG_FILE = textwrap.dedent('''
    """Write a 2 GB EVT 2.0 file from one encoded second repeated with its TIME_HIGH words
    moved on, then stream it in 1 s windows, printing events seen and the most anonymous
    memory (RssAnon, MB) the process held while streaming."""
    import sys
    from pathlib import Path

    import numpy as np

    from substrates.datasets.events import evt2
    from substrates.datasets.events.events import EVENT_DTYPE
    from substrates.datasets.events.stream import EventStream

    def anon_mb():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024

    path, copies = Path(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(0)
    second = np.empty(2_000_000, EVENT_DTYPE)
    second["t"] = np.sort(rng.integers(0, 1_000_000, second.size))
    second["x"], second["y"] = rng.integers(0, 1280, second.size), rng.integers(0, 720, second.size)
    second["p"] = rng.integers(0, 2, second.size)
    words = np.frombuffer(evt2.encode(second), "<u4").copy()
    high = (words >> 28) == 0x8
    with path.open("wb") as out:
        out.write(b"% evt 2.0\\n% format EVT2;width=1280;height=720\\n% end\\n")
        for k in range(copies):
            shifted = words.copy()
            shifted[high] += np.uint32(k * (1_000_000 >> 6))  # exactly 1 s later
            out.write(shifted.tobytes())
    size = path.stat().st_size
    before = anon_mb()
    stream = EventStream(path)
    most, seen, windows = anon_mb(), 0, 0
    for window in stream.windows(1_000_000):
        seen += len(window)
        windows += 1
        most = max(most, anon_mb())
    print(size, stream.events, seen, windows, round(most - before))
''')


@pytest.mark.science  # a full-size file (2 GB written to disk): 30 s in CI
def test_a_2_gb_file_streams_in_windows_in_bounded_memory(tmp_path) -> None:
    """Read whole, this file's 512 M events would take 8 GB; streamed in 1 s windows (2 M
    events, 32 MB each) the process holds a few hundred MB at most."""
    script = tmp_path / "big.py"
    script.write_text(BIG_FILE)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "big.raw"), "256"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    size, events, seen, windows, most_mb = (int(v) for v in result.stdout.split())
    assert size > 2 * 10**9 and events == seen == 256 * 2_000_000 and windows == 256
    assert most_mb < 400, f"{most_mb} MB held while streaming"


def test_a_file_made_mostly_of_words_without_cd_events_is_refused(tmp_path) -> None:
    """Vendor words are allowed and counted, but a file of more than half of them is
    damaged or of another format: one line, read whole or streamed."""
    write_events(random_events(5_000, seed=7), tmp_path / "ok.raw", "evt2")
    data = (tmp_path / "ok.raw").read_bytes()
    others = np.full(20_000, 0xE0000000, "<u4").tobytes()  # OTHERS words
    (tmp_path / "odd.raw").write_bytes(data + others)
    for read in (read_events, EventStream):
        with pytest.raises(EventError, match=r"20,000 of its .* words carry no CD event"):
            read(tmp_path / "odd.raw")
    (tmp_path / "fine.raw").write_bytes(data + others[:4_000])
    assert EventStream(tmp_path / "fine.raw").skipped == 1_000
