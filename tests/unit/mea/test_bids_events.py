"""Stimulation from BIDS events.tsv sidecars written by pandas, as other tools write them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from substrates.datasets.mea.bids_events import read_events_tsv
from substrates.datasets.mea.recording import RecordingError

IDS = list(range(1, 9))


def _write(path, rows: list[dict]) -> None:
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False, na_rep="n/a")


def test_monopolar_bipolar_and_same_polarity_sites(tmp_path) -> None:
    rows = [
        {
            "onset": 1.5,
            "duration": 2e-4,
            "trial_type": "stim",
            "electrical_stimulation_site": "E3",
            "electrical_stimulation_current": -1.2e-6,
            "electrical_stimulation_waveform": "triphasic",
        },
        {
            "onset": 0.5,
            "duration": 2e-4,
            "trial_type": "stim",
            "electrical_stimulation_site": "E4-E5",
            "electrical_stimulation_current": 2e-6,
            "electrical_stimulation_waveform": "biphasic",
        },
        {
            "onset": 2.0,
            "duration": 0.1,
            "trial_type": "light",
            "electrical_stimulation_site": None,
            "electrical_stimulation_current": None,
            "electrical_stimulation_waveform": None,
        },
        {
            "onset": 2.5,
            "duration": 2e-4,
            "trial_type": "stim",
            "electrical_stimulation_site": "el_6+el_7",
            "electrical_stimulation_current": 5e-7,
            "electrical_stimulation_waveform": None,
        },
    ]
    _write(tmp_path / "events.tsv", rows)
    read = read_events_tsv(tmp_path / "events.tsv", IDS)
    stim = read.stimulation
    assert read.skipped_rows == 1  # the light flash
    assert np.allclose(stim.time_s, [0.5, 1.5, 2.5])  # sorted by onset
    assert stim.electrodes == ((4, 5), (3,), (6, 7))
    assert np.allclose(stim.current_ua, [2.0, -1.2, 0.5])  # A -> µA
    assert stim.weights == ((1.0, -1.0), (1.0,), (1.0, 1.0))
    assert stim.shape == ("biphasic", "triphasic", "biphasic")  # n/a: the default
    assert stim.currents(0) == (2.0, -2.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"electrical_stimulation_site": "E9"}, "row 2, field 'electrical_stimulation_site': 'E9'"),
        ({"electrical_stimulation_site": "E3-E3"}, "names an electrode twice"),
        ({"electrical_stimulation_current": "lots"}, "'lots' is not a number"),
        ({"onset": -1.0}, "before the recording"),
        ({"electrical_stimulation_waveform": "square"}, "allowed: biphasic, triphasic"),
        (
            {"electrical_stimulation_current": None, "electrical_stimulation_voltage": 0.4},
            "row 2: 0.4 V at E1: voltage-mode stimulation",
        ),
    ],
)
def test_bad_rows_are_one_line_naming_row_and_field(tmp_path, change, message) -> None:
    row = {
        "onset": 0.1,
        "duration": 2e-4,
        "electrical_stimulation_site": "E1",
        "electrical_stimulation_current": 1e-6,
        "electrical_stimulation_waveform": "biphasic",
        **change,
    }
    _write(tmp_path / "events.tsv", [row])
    with pytest.raises(RecordingError, match=message) as caught:
        read_events_tsv(tmp_path / "events.tsv", IDS)
    assert "\n" not in str(caught.value)


def test_missing_columns_and_files_without_stimulation(tmp_path) -> None:
    _write(tmp_path / "plain.tsv", [{"onset": 1.0, "duration": 0.5, "trial_type": "go"}])
    with pytest.raises(RecordingError, match="no column electrical_stimulation_site"):
        read_events_tsv(tmp_path / "plain.tsv", IDS)
    volts = {"onset": 1.0, "duration": 2e-4, "electrical_stimulation_site": "E1"}
    _write(tmp_path / "volts.tsv", [{**volts, "electrical_stimulation_voltage": 0.3}])
    with pytest.raises(RecordingError, match=r"volts\.tsv: voltage-mode stimulation"):
        read_events_tsv(tmp_path / "volts.tsv", IDS)
    _write(
        tmp_path / "none.tsv",
        [
            {
                "onset": 1.0,
                "duration": 0.5,
                "electrical_stimulation_site": None,
                "electrical_stimulation_current": None,
            }
        ],
    )
    with pytest.raises(RecordingError, match="no row names a stimulation site"):
        read_events_tsv(tmp_path / "none.tsv", IDS)
    (tmp_path / "binary.tsv").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordingError, match="not a tab-separated text file"):
        read_events_tsv(tmp_path / "binary.tsv", IDS)
    with pytest.raises(RecordingError, match="no such events file"):
        read_events_tsv(tmp_path / "absent.tsv", IDS)
