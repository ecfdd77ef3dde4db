"""Event files against independent coders: expelliarmus writes EVT 2.0, EVT 3.0 and DAT files
that we read event for event; the Rust `evt3` crate (a decoder written to the Prophesee
spec) reads our EVT 3.0 files and decodes hand-made vector words; bad files are refused."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events import evt3 as our_evt3
from substrates.datasets.events.events import EVENT_DTYPE, EventError, Events
from substrates.datasets.events.files import read_events, write_events

expelliarmus = pytest.importorskip("expelliarmus")
crate = pytest.importorskip("evt3")


def random_events(n: int, seed: int, span_us: int = 60_000_000, width=1280, height=720) -> Events:
    rng = np.random.default_rng(seed)
    array = np.empty(n, EVENT_DTYPE)
    array["t"] = np.sort(rng.integers(0, span_us, n))
    array["x"], array["y"] = rng.integers(0, width, n), rng.integers(0, height, n)
    array["p"] = rng.integers(0, 2, n)
    return Events(array, width, height)


def as_expelliarmus(events: Events) -> np.ndarray:
    dtype = np.dtype([("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "u1")])
    out = np.empty(len(events), dtype)
    for name in "txyp":
        out[name] = events.array[name]
    return out


def same(ours: np.ndarray, theirs: np.ndarray) -> bool:
    return len(ours) == len(theirs["t"]) and all(
        np.array_equal(ours[k].astype(np.int64), np.asarray(theirs[k]).astype(np.int64))
        for k in "txyp"
    )


@pytest.mark.parametrize(
    ("encoding", "name"), [("evt2", "a.raw"), ("evt3", "a.raw"), ("dat", "a.dat")]
)
def test_files_written_by_expelliarmus_read_event_for_event(tmp_path, encoding, name) -> None:
    events = random_events(50_000, seed=1)
    wizard = expelliarmus.Wizard(encoding=encoding)
    wizard.save(tmp_path / name, as_expelliarmus(events))
    theirs = wizard.read(tmp_path / name)
    ours, info = read_events(tmp_path / name, width=1280, height=720)
    assert same(ours.array, theirs)
    assert info.encoding == encoding and info.sensor_from == "caller"
    if encoding != "evt3":  # expelliarmus' EVT 3.0 writer drops timing (see evt3.py)
        assert same(ours.array, events.array)


def test_our_evt3_files_read_event_for_event_by_the_spec_decoder(tmp_path) -> None:
    events = random_events(50_000, seed=2, span_us=40_000_000)  # > 2^24 µs: time wraps
    write_events(events, tmp_path / "ours.raw", "evt3")
    decoded = crate.decode_file(str(tmp_path / "ours.raw"))
    theirs = {"t": decoded.timestamp, "x": decoded.x, "y": decoded.y, "p": decoded.polarity}
    assert same(events.array, theirs)
    assert (decoded.sensor_width, decoded.sensor_height) == (1280, 720)
    back, info = read_events(tmp_path / "ours.raw")
    assert np.array_equal(back.array, events.array) and info.sensor_from == "header"


@pytest.mark.parametrize(("encoding", "name"), [("evt2", "b.raw"), ("dat", "b.dat")])
def test_our_evt2_and_dat_files_read_event_for_event_by_expelliarmus(
    tmp_path, encoding, name
) -> None:
    events = random_events(30_000, seed=3)
    write_events(events, tmp_path / name, encoding)
    assert same(events.array, expelliarmus.Wizard(encoding=encoding).read(tmp_path / name))
    assert np.array_equal(read_events(tmp_path / name)[0].array, events.array)


def test_vector_words_decode_as_the_spec_decoder_does() -> None:
    rng = np.random.default_rng(4)
    words = []
    for row in range(300):  # as a camera sends them: time high, time low, then the row
        words += [
            0x8000 | (row + 1),
            0x6000 | int(rng.integers(0, 4096)),
            0x0000 | int(rng.integers(0, 720)),
            0x3000 | int(rng.integers(0, 2)) << 11 | int(rng.integers(0, 1000)),
            0x4000 | int(rng.integers(0, 4096)),
            0x5000 | int(rng.integers(0, 256)),
            0x2000 | int(rng.integers(0, 2)) << 11 | int(rng.integers(0, 1280)),
        ]
    payload = np.array(words, "<u2").tobytes()
    ours, back, skipped, _, _, _ = our_evt3.decode(payload)
    theirs = crate.decode_bytes(payload)
    assert back == -1 and skipped == 0 and len(ours) > 1000
    assert same(ours, {"t": theirs.timestamp, "x": theirs.x, "y": theirs.y, "p": theirs.polarity})


def test_words_without_cd_events_are_counted(tmp_path) -> None:
    events = random_events(100, seed=5, width=640, height=480)
    write_events(events, tmp_path / "c.raw", "evt2")
    data = (tmp_path / "c.raw").read_bytes()
    trigger = np.array([0xA0000001, 0xE0000000], "<u4").tobytes()  # EXT_TRIGGER, OTHERS
    (tmp_path / "d.raw").write_bytes(data + trigger)
    back, info = read_events(tmp_path / "d.raw")
    assert info.skipped == 2 and np.array_equal(back.array, events.array)


def header(lines: str) -> bytes:
    return lines.encode()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "cut.raw",
            header("% evt 3.0\n% geometry 64x64\n") + b"\x01\x00\x02",
            "cut word stream: 3 bytes from byte 27",
        ),
        ("none.raw", header("% camera x\n") + b"\x00\x00", "names no EVT 2.0, 2.1 or 3.0"),
        ("bare.raw", header("% evt 3.0\n% end\n"), "no events and no sensor size"),
        (
            "back.raw",
            header("% evt 2.0\n% geometry 64x64\n")
            + np.array([0x80000002, 0x10000801, 0x80000001, 0x10000801], "<u4").tobytes(),
            "timestamps go backwards at byte 39",
        ),
        (
            "wide.raw",
            header("% evt 2.0\n% geometry 8x8\n")
            + np.array([0x80000000, 0x10004801], "<u4").tobytes(),
            "x=9, y=1 lies outside the 8×8",
        ),
        ("type.dat", header("% Version 2\n") + b"\x0e\x08", "event type 14 EventExtTrigger"),
        ("size.dat", header("% Version 2\n") + b"\x0c\x10", "event type 12, size 16"),
        ("short.dat", header("% Version 2\n") + b"\x00\x08" + b"\x00" * 11, "cut word stream"),
        ("a.txt", b"", "unknown event file format"),
    ],
)
def test_bad_files_are_refused_naming_file_and_byte(tmp_path, name, content, message) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(EventError, match=message) as caught:
        read_events(tmp_path / name)
    assert str(tmp_path / name) in str(caught.value)


def test_aedat4_written_by_dv_processing_reads_event_for_event(tmp_path) -> None:
    """Our AEDAT4 reader is the `aedat` crate, our writer dv-processing: each is checked by
    the other library's independent code."""
    pytest.importorskip("aedat")
    dv = pytest.importorskip("dv_processing")
    events = random_events(3_000, seed=13, width=640, height=480)
    events.array["t"] += 1_700_000_000_000_000  # AEDAT4 keeps Unix µs
    config = dv.io.MonoCameraWriter.EventOnlyConfig("DVXplorer", (640, 480))
    writer = dv.io.MonoCameraWriter(str(tmp_path / "theirs.aedat4"), config)
    store = dv.EventStore()
    for e in events.array:
        store.push_back(int(e["t"]), int(e["x"]), int(e["y"]), bool(e["p"]))
    writer.writeEvents(store)
    del writer
    ours, _ = read_events(tmp_path / "theirs.aedat4")
    assert np.array_equal(ours.array, events.array) and (ours.width, ours.height) == (640, 480)
    write_events(events, tmp_path / "ours.aedat4")
    recording = dv.io.MonoCameraRecording(str(tmp_path / "ours.aedat4"))
    batches = []
    while (batch := recording.getNextEventBatch()) is not None:
        batches.append(batch.numpy())
    theirs = np.concatenate(batches)
    assert recording.getEventResolution() == (640, 480)
    assert same(
        events.array,
        {"t": theirs["timestamp"], "x": theirs["x"], "y": theirs["y"], "p": theirs["polarity"]},
    )


def test_hdf5_in_the_dsec_layout_written_by_h5py_reads_event_for_event(tmp_path) -> None:
    h5py = pytest.importorskip("h5py")
    events = random_events(4_000, seed=14, width=640, height=480)
    with h5py.File(tmp_path / "dsec.h5", "w") as handle:  # as DSEC ships them
        group = handle.create_group("events")
        for name, kind in (("x", "u2"), ("y", "u2"), ("p", "u1")):
            group.create_dataset(name, data=events.array[name].astype(kind))
        group.create_dataset("t", data=(events.array["t"] - 1_000).astype("u4"))
        handle.create_dataset("t_offset", data=np.int64(1_000))
    ours, _ = read_events(tmp_path / "dsec.h5", width=640, height=480)
    assert np.array_equal(ours.array, events.array)
    write_events(events, tmp_path / "ours.h5")
    with h5py.File(tmp_path / "ours.h5", "r") as handle:
        group = handle["events"]
        assert same(events.array, {k: group[k][:] for k in "txyp"})
        assert (group.attrs["width"], group.attrs["height"]) == (640, 480)
    (tmp_path / "bad.h5").write_bytes(b"not hdf5")
    with pytest.raises(EventError, match="not a readable HDF5 file"):
        read_events(tmp_path / "bad.h5")


def test_dat_written_by_faery_as_eventcd_reads_event_for_event(tmp_path) -> None:
    """faery 0.7 writes DAT files with event type 12 (EventCd), Metavision's choice."""
    faery = pytest.importorskip("faery")
    events = random_events(3_000, seed=21, width=320, height=240)
    theirs = np.zeros(len(events), faery.EVENTS_DTYPE)
    for name in ("t", "x", "y"):
        theirs[name] = events.array[name]
    theirs["on"] = events.array["p"] == 1
    stream = faery.events_stream_from_array(theirs, dimensions=(320, 240))
    stream.to_file(tmp_path / "faery.dat", zero_t0=False)
    data = (tmp_path / "faery.dat").read_bytes()
    assert b"\n\x0c\x08" in data[:200]  # the type and size bytes after the header
    ours, info = read_events(tmp_path / "faery.dat")
    assert info.encoding == "dat" and (ours.width, ours.height) == (320, 240)
    assert np.array_equal(ours.array, events.array)


def test_aedat4_sizes_past_the_file_are_refused_before_decoding(tmp_path) -> None:
    """The IOHeader length and each packet's size are walked from the byte layout
    (iniVation's AEDAT 4.0 documentation) before the decoder's process starts."""
    import struct

    pytest.importorskip("aedat")
    pytest.importorskip("dv_processing")
    from substrates.datasets.events.aedat4 import MAGIC, check_layout

    write_events(random_events(3_000, seed=5, width=64, height=48), tmp_path / "ok.aedat4")
    data = (tmp_path / "ok.aedat4").read_bytes()
    assert check_layout(tmp_path / "ok.aedat4") >= 1
    header = struct.unpack("<I", data[len(MAGIC) : len(MAGIC) + 4])[0]
    first = len(MAGIC) + 4 + header  # the first packet: stream id, then its size
    for at, field in ((len(MAGIC), "header length"), (first + 4, "packet 0 size")):
        for size in (2**31, 2**32 - 1, len(data)):
            changed = data[:at] + struct.pack("<I", size) + data[at + 4 :]
            (tmp_path / "bad.aedat4").write_bytes(changed)
            with pytest.raises(EventError, match=rf"field '{field}': {size:,} bytes at byte"):
                read_events(tmp_path / "bad.aedat4")


def _dsec_columns(path, count: int, *, written: int, chunks: int | None = 4096, **extra) -> None:
    """A DSEC-layout file written by h5py declaring `count` events of which the first
    `written` hold data (h5py leaves the other chunks unallocated)."""
    import h5py

    with h5py.File(path, "w") as handle:
        group = handle.create_group("events")
        for name, kind in (("x", "u2"), ("y", "u2"), ("t", "i8"), ("p", "u1")):
            column = group.create_dataset(
                name, shape=(count,), dtype=kind, chunks=chunks, **extra.get(name, {})
            )
            if written:
                column[:written] = np.arange(written) % 2 if name == "p" else np.arange(written)


@pytest.mark.parametrize("chunks", [4096, None])
def test_hdf5_declaring_events_never_written_is_refused_before_allocation(tmp_path, chunks):
    pytest.importorskip("h5py")
    import resource

    path = tmp_path / "bomb.h5"
    _dsec_columns(path, 10**8, written=0, chunks=chunks)  # 1.6 GB declared, a few KB stored
    assert path.stat().st_size < 10_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(EventError, match=r"field .events/x.: declares 100,000,000 values"):
        read_events(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB
    _dsec_columns(tmp_path / "half.h5", 10_000, written=4096)  # chunks 2 and 3 missing
    with pytest.raises(EventError, match="10,000 values in 3 chunks; 1 were written"):
        read_events(tmp_path / "half.h5")


def test_hdf5_beyond_the_event_budget_is_refused_naming_it(tmp_path) -> None:
    pytest.importorskip("h5py")
    from substrates.datasets.events.hdf5 import read_hdf5

    _dsec_columns(tmp_path / "e.h5", 10_000, written=10_000)
    assert len(read_hdf5(tmp_path / "e.h5", max_events=10_000)) == 10_000
    with pytest.raises(EventError, match=r"10,000 events, more than the 9,999 .*max_events"):
        read_hdf5(tmp_path / "e.h5", max_events=9_999)


def test_hdf5_windows_read_what_a_whole_read_reads(tmp_path, monkeypatch) -> None:
    pytest.importorskip("h5py")
    from substrates.datasets.events import hdf5

    _dsec_columns(tmp_path / "e.h5", 10_001, written=10_001)
    whole = hdf5.read_hdf5(tmp_path / "e.h5")
    monkeypatch.setattr(hdf5, "WINDOW", 1000)
    assert np.array_equal(hdf5.read_hdf5(tmp_path / "e.h5").array, whole.array)


def test_hdf5_stored_outside_the_file_or_with_nan_times_is_refused(tmp_path) -> None:
    h5py = pytest.importorskip("h5py")
    outside = {"t": {"external": [(str(tmp_path / "raw.bin"), 0, h5py.h5f.UNLIMITED)]}}
    _dsec_columns(tmp_path / "ext.h5", 100, written=100, chunks=None, **outside)
    with pytest.raises(EventError, match="'events/t': stored outside the file"):
        read_events(tmp_path / "ext.h5")
    with h5py.File(tmp_path / "nan.h5", "w") as handle:
        group = handle.create_group("events")
        for name in "xyp":
            group[name] = np.zeros(3, "u2")
        group["t"] = np.array([0.0, np.nan, 2.0])
    with pytest.raises(EventError, match="'events/t': non-finite value nan at event 1"):
        read_events(tmp_path / "nan.h5")


def _evt21_word(kind: int, ts: int, x: int, y: int, valid: int) -> int:
    """A 64-bit EVT 2.1 CD word as the Prophesee documentation lays it out."""
    return kind << 60 | ts << 54 | x << 43 | y << 32 | valid


@pytest.mark.parametrize("legacy", [False, True])
def test_evt21_vector_words_built_from_the_published_layout(tmp_path, legacy) -> None:
    """Words built bit by bit from the documentation (the IMX636's `legacy` layout swaps
    the 32-bit halves); each set bit i of the mask is an event at x + i, enumerated here."""
    rng = np.random.default_rng(8)
    words, expected = [], []
    for high in range(1, 40):
        words.append(0x8 << 60 | high << 32)  # EVT_TIME_HIGH
        for ts in np.sort(rng.integers(0, 64, 3)).tolist():
            kind, y = int(rng.integers(0, 2)), int(rng.integers(0, 720))
            x, valid = int(rng.integers(0, 1248)) & ~31, int(rng.integers(1, 2**32))
            words.append(_evt21_word(kind, ts, x, y, valid))
            expected += [((high << 6) | ts, x + i, y, kind) for i in range(32) if valid >> i & 1]
        words.append(0xA << 60)  # EXT_TRIGGER: skipped, counted
    array = np.array(words, np.uint64)
    if legacy:
        array = (array >> np.uint64(32)) | ((array & np.uint64(0xFFFFFFFF)) << np.uint64(32))
    layout = ";endianness=legacy" if legacy else ""
    text = f"% evt 2.1\n% format EVT21;width=1280;height=720{layout}\n% end\n".encode()
    (tmp_path / "v.raw").write_bytes(text + array.astype("<u8").tobytes())
    ours, info = read_events(tmp_path / "v.raw")
    got = list(zip(*(ours.array[k].tolist() for k in "txyp"), strict=True))
    assert got == expected and info.encoding == "evt21" and info.skipped == 39
    assert len(expected) > 1000


def test_evt21_round_trip_and_evt21_is_not_read_as_evt20(tmp_path) -> None:
    events = random_events(20_000, seed=9)
    write_events(events, tmp_path / "e.raw", "evt21")
    assert b"% format EVT21;" in (tmp_path / "e.raw").read_bytes()[:200]
    back, info = read_events(tmp_path / "e.raw")
    assert info.encoding == "evt21" and np.array_equal(back.array, events.array)
    (tmp_path / "E.RAW").write_bytes((tmp_path / "e.raw").read_bytes())  # capitals
    assert np.array_equal(read_events(tmp_path / "E.RAW")[0].array, events.array)


def test_a_first_data_byte_percent_without_an_end_line_is_data(tmp_path) -> None:
    """expelliarmus writes EVT 2.0 with no `% end`; events from t = 0x25 << 6 µs make the
    first data byte a '%' (the low byte of the first EVT_TIME_HIGH word). expelliarmus'
    own reader fails on that file; every event it was given is read back here."""
    events = random_events(5_000, seed=10, span_us=50_000)
    events.array["t"] = np.sort(events.array["t"] % 60) + (0x25 << 6)
    wizard = expelliarmus.Wizard(encoding="evt2")
    wizard.save(tmp_path / "p.raw", as_expelliarmus(events))
    data = (tmp_path / "p.raw").read_bytes()
    start = data.find(b"\n%", 0) + 1
    while (
        data[start : start + 1] == b"%"
        and data.find(b"\n", start) - start < 100
        and not any(b < 32 for b in data[start : data.find(b"\n", start)])
    ):
        start = data.find(b"\n", start) + 1
    assert data[start : start + 1] == b"%" and b"% end" not in data[:start]
    ours, _ = read_events(tmp_path / "p.raw", width=1280, height=720)
    assert same(ours.array, events.array)


def test_a_header_only_file_with_a_sensor_size_holds_no_events(tmp_path) -> None:
    (tmp_path / "h.raw").write_bytes(b"% evt 3.0\n% format EVT3;width=640;height=480\n% end\n")
    events, _ = read_events(tmp_path / "h.raw")
    assert len(events) == 0 and (events.width, events.height) == (640, 480)


@pytest.mark.parametrize(
    ("encoding", "word", "bad"),
    [
        ("evt2", 4, np.array([0xC0000000], "<u4")),
        ("evt3", 2, np.array([0xD123], "<u2")),
        ("evt21", 8, np.array([0x3 << 60], "<u8")),
    ],
)
def test_a_word_of_a_reserved_type_is_corrupt_data_named_by_its_byte(
    tmp_path, encoding, word, bad
) -> None:
    """Damaged bytes that make a reserved word type are an error at that byte, not events
    read from garbage or a silent 'skipped' count."""
    events = random_events(2_000, seed=11)
    write_events(events, tmp_path / "ok.raw", encoding)
    data = bytearray((tmp_path / "ok.raw").read_bytes())
    start = data.index(b"% end\n") + len(b"% end\n")
    at = start + word * 100
    data[at : at + word] = bad.tobytes()
    (tmp_path / "bad.raw").write_bytes(bytes(data))
    with pytest.raises(EventError, match=f"corrupt data at byte {at}: word type") as caught:
        read_events(tmp_path / "bad.raw")
    assert "is reserved in " + encoding.upper() in str(caught.value)


def _payload(path) -> bytes:
    data = path.read_bytes()
    return data[data.index(b"% end\n") + len(b"% end\n") :]


# OpenEB's legacy headers: a sample EVT 2.0 header as Metavision wrote it in 2020 (no
# geometry; the camera named by plugin and system ID), and a third-party integrator's.
GEN41_EVK3 = (
    b"% Date 2020-09-04 13:14:05\n% evt 2.0\n% firmware_version 3.3.0\n"
    b"% integrator_name Prophesee\n% plugin_name hal_plugin_gen41_evk3\n"
    b"% system_ID 48\n% end\n"
)


@pytest.mark.parametrize(
    ("header", "size", "source"),
    [
        (GEN41_EVK3, (1280, 720), "system_ID"),
        (
            b"% evt 2.0\n% integrator_name Prophesee\n% system_ID 41\n% end\n",
            (640, 480),
            "system_ID",
        ),  # 0x29: EVK2 Gen3.1
        (b"% evt 2.0\n% plugin_name hal_plugin_gen31_fx3\n% end\n", (640, 480), "plugin_name"),
        (
            b"% evt 2.0\n% integrator_name CenturyArks\n% plugin_name evc3a_plugin_gen31\n"
            b"% system_ID 40\n% end\n",
            (600, 400),
            "inferred",
        ),
    ],
)
def test_legacy_headers_give_the_sensor_their_camera_has(tmp_path, header, size, source) -> None:
    """Headers without a geometry name the camera: its system ID (read only when the
    integrator is Prophesee, as OpenEB does) or HAL plugin gives the sensor size from
    OpenEB's tables; another vendor's ID is not interpreted (size from the events)."""
    events = random_events(3_000, seed=12, width=600, height=400)
    write_events(events, tmp_path / "e.raw", "evt2")
    (tmp_path / "legacy.raw").write_bytes(header + _payload(tmp_path / "e.raw"))
    ours, info = read_events(tmp_path / "legacy.raw")
    assert (ours.width, ours.height, info.sensor_from) == (*size, source)
    assert np.array_equal(ours.array, events.array)


def test_a_camera_the_events_outgrow_gives_way_to_their_extent(tmp_path) -> None:
    """expelliarmus heads every EVT 2.0 file with a Gen3 camera's header (system_ID 21,
    hal_plugin_gen3_fx3: 640 × 480) whatever the sensor; events beyond that size are
    read, the size taken from them, and the source says why."""
    events = random_events(3_000, seed=14)  # 1280 × 720
    expelliarmus.Wizard(encoding="evt2").save(tmp_path / "x.raw", as_expelliarmus(events))
    assert b"% system_ID 21" in (tmp_path / "x.raw").read_bytes()[:300]
    ours, info = read_events(tmp_path / "x.raw")
    assert same(ours.array, events.array) and (ours.width, ours.height) == (1280, 720)
    assert info.sensor_from == "inferred (events lie beyond the 640×480 its system_ID implies)"
    small = random_events(3_000, seed=15, width=640, height=480)
    expelliarmus.Wizard(encoding="evt2").save(tmp_path / "s.raw", as_expelliarmus(small))
    ours, info = read_events(tmp_path / "s.raw")
    assert (ours.width, ours.height, info.sensor_from) == (640, 480, "system_ID")


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (
            b"% evt 2.0\n% format EVT2;width=640;height=480\n% geometry 1280x720\n% end\n",
            "format says 640×480 and its geometry 1280×720",
        ),
        (
            b"% evt 2.0\n% integrator_name Prophesee\n% plugin_name hal_plugin_gen3_fx3\n"
            b"% system_ID 48\n% end\n",
            "system_ID 48 is a 1280×720 camera and its plugin",
        ),
    ],
)
def test_headers_that_contradict_themselves_or_the_events_are_refused(
    tmp_path, header, message
) -> None:
    events = random_events(3_000, seed=13, width=1280, height=720)
    write_events(events, tmp_path / "e.raw", "evt2")
    (tmp_path / "bad.raw").write_bytes(header + _payload(tmp_path / "e.raw"))
    with pytest.raises(EventError, match=message):
        read_events(tmp_path / "bad.raw")


@pytest.mark.parametrize(
    "said",
    [
        b"% endianness legacy\n",
        b"% integrator_name Prophesee\n% system_ID 49\n",
        b"% format EVT21;endianness=legacy\n",
    ],  # a format line without the size
)
def test_evt21_halves_swapped_when_the_header_says_so_outside_the_format(tmp_path, said) -> None:
    """OpenEB reads an EVT 2.1 file as `legacy` (32-bit halves swapped) from an `endianness`
    line, or, when nothing says, for Prophesee systems older than the Saphir board (0x31
    is an EVK3 IMX636); words built from the documentation's layout."""
    words = [0x8 << 60 | 5 << 32, _evt21_word(1, 3, 64, 100, 0b1011)]
    array = np.array(words, np.uint64)
    swapped = (array >> np.uint64(32)) | ((array & np.uint64(0xFFFFFFFF)) << np.uint64(32))
    text = b"% evt 2.1\n% geometry 1280x720\n" + said + b"% end\n"
    (tmp_path / "s.raw").write_bytes(text + swapped.astype("<u8").tobytes())
    ours, _ = read_events(tmp_path / "s.raw")
    t = (5 << 6) | 3
    assert ours.array.tolist() == [(t, 64, 100, 1), (t, 65, 100, 1), (t, 67, 100, 1)]
