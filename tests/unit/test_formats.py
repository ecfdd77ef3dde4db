"""Every substrate picks its readers through one registry of the same shape
(datasets/formats.py): each ending leads to its format, an unknown one is the substrate's
own error naming the file and the endings it knows, a reader's refusal carries the file as
its `path`, and reading through the registry gives what the format's reader gives."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from substrates.datasets.formats import FOLDER, Formats
from substrates.errors import InputFileError

SUBSTRATES = {
    "crn": "FactorGraphError",
    "events": "EventError",
    "quantum": "CircuitFileError",
    "cml": "CMLDataError",
    "mea": "RecordingError",
}


@pytest.mark.parametrize("substrate", sorted(SUBSTRATES))
def test_each_substrate_has_one_registry_whose_endings_lead_to_their_format(substrate) -> None:
    package = importlib.import_module(f"substrates.datasets.{substrate}")
    formats = package.FORMATS
    assert isinstance(formats, Formats)
    endings = [e for fmt in formats for e in fmt.endings if e != FOLDER]
    assert endings and len(endings) == len(set(endings))
    for fmt in formats:
        assert formats[fmt.name] is fmt
        for ending in fmt.endings:
            if ending != FOLDER:
                assert formats.of(f"Recording.1{ending.upper()}") is fmt  # case-insensitive


@pytest.mark.parametrize("substrate", sorted(SUBSTRATES))
def test_an_unknown_ending_is_the_substrates_error_naming_the_file(substrate, tmp_path) -> None:
    package = importlib.import_module(f"substrates.datasets.{substrate}")
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(InputFileError) as caught:
        package.FORMATS.read(path)
    error = caught.value
    assert type(error).__name__ == SUBSTRATES[substrate]
    assert error.path == path and str(error).startswith(f"{path}: unknown")
    assert package.FORMATS.usage() in str(error) and "\n" not in str(error)
    with pytest.raises(InputFileError, match=r"unknown .* format 'nope'; known: "):
        package.FORMATS.read(path, format="nope")


def test_a_readers_refusal_carries_the_file_even_when_its_message_already_names_it(
    tmp_path,
) -> None:
    from substrates.datasets.crn import FORMATS as graphs
    from substrates.datasets.events import FORMATS as events
    from substrates.datasets.quantum import load_circuits

    for formats, name, content in [
        (graphs, "broken.uai", "BAYES\n3\n2 2"),
        (events, "broken.raw", "% evt 3.0\n% end\n\x01"),
    ]:
        path = tmp_path / name
        path.write_text(content)
        with pytest.raises(InputFileError) as caught:
            formats.read(path)
        assert caught.value.path == path and str(caught.value).count(str(path)) == 1
    path = tmp_path / "broken.qasm"
    path.write_text("OPENQASM 3.0;\nqubit[2] q;\nfoo q[0];\n")
    with pytest.raises(InputFileError, match="cannot parse") as caught:
        load_circuits(path)
    assert caught.value.path == path and str(caught.value).count(str(path)) == 1


def test_a_format_named_by_the_caller_reads_a_file_whatever_its_ending(tmp_path) -> None:
    from substrates.datasets.crn import FORMATS, example_path, read_uai

    renamed = tmp_path / "asia.txt"
    renamed.write_bytes(example_path().read_bytes())
    by_name = FORMATS.read(renamed, format="uai")
    direct = read_uai(example_path())
    assert by_name.variables == direct.variables
    pairs = zip(by_name.factors, direct.factors, strict=True)
    assert all(np.array_equal(a.table, b.table) for a, b in pairs)


def test_events_written_and_read_through_the_registry_round_trip(tmp_path) -> None:
    from substrates.datasets.events import FORMATS, EventError, Events
    from substrates.datasets.events.events import EVENT_DTYPE

    rng = np.random.default_rng(3)
    array = np.empty(500, EVENT_DTYPE)
    array["t"] = np.sort(rng.integers(0, 20_000, 500))
    array["x"], array["y"] = rng.integers(0, 32, 500), rng.integers(0, 24, 500)
    array["p"] = rng.integers(0, 2, 500)
    events = Events(array, 32, 24)
    written = [fmt for fmt in FORMATS if fmt.write is not None]
    assert {fmt.name for fmt in written} == {"raw", "dat", "aedat4", "hdf5", "parquet"}
    for fmt in written:
        path = tmp_path / f"texture{fmt.endings[-1]}"
        FORMATS.write(events, path)
        back, info = FORMATS.read(path)
        assert (back.width, back.height) == (32, 24), fmt.name
        for field in ("t", "x", "y", "p"):
            assert np.array_equal(back.array[field], events.array[field]), (fmt.name, field)
        assert info.encoding in (fmt.name, "evt3"), (fmt.name, info.encoding)
    with pytest.raises(EventError, match=r"AEDAT 3\.x files are read, not written") as caught:
        FORMATS.write(events, tmp_path / "texture.aedat")
    assert caught.value.path == tmp_path / "texture.aedat"


def test_circuits_and_cml_data_read_through_the_registry_as_through_their_readers() -> None:
    from substrates.datasets.cml import FORMATS as links
    from substrates.datasets.cml import open_dataset, pycomlink_example
    from substrates.datasets.quantum import FORMATS as circuits
    from substrates.datasets.quantum import example_path, load_circuits

    (registry,) = circuits.read(example_path())
    assert registry == load_circuits(example_path())[0]
    assert links.of(pycomlink_example()).name == "opensense"
    dataset, _ = links.read(pycomlink_example())
    direct, _ = open_dataset(pycomlink_example())
    assert dataset.sizes == direct.sizes


def test_mea_recordings_are_told_apart_by_ending_and_folders_are_litke_datasets(
    tmp_path,
) -> None:
    from substrates.datasets.mea import FORMATS

    assert FORMATS.of(tmp_path / "session.nwb").name == "nwb"
    assert FORMATS.of(tmp_path / "data000.bin").name == "litke"
    assert FORMATS.of(tmp_path).name == "litke"
    assert FORMATS["neo"].endings == ()  # chosen by name only: neo reads dozens of endings
