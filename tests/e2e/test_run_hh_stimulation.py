"""hh-fit on stimulation as labs record it: spontaneous spikes between pulses (a session
whose cell goes on firing through the protocol, too few spikes before the first pulse);
spontaneous activity as a recording of its own (a session cut in two files, as a Litke
data000 and data001); stimulation that cannot constrain a fit refused in one line before
any simulation and before a run folder. Each file is a simulated session written as NWB
and read back as a recorded one; the simulator's truth only scores."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from substrates.errors import SubstratesError

from .cli import only_run_folder, substrates

pytest.importorskip("jaxley")
pytest.importorskip("sbi")

BETWEEN = {
    "spontaneous_s": 0.5,
    "firing_throughout": True,
    "trial_ms": 50.0,
    "trials": 4,
    "stim_electrodes": 3,
    "pair_electrodes": 2,
    "seed": 5,
    "offset_uv": 100,
    "artefact_uv_per_ua": 100,
    "saturation_uv": 1000,
}
"""A session with half a second of quiet before its pulses (about five spikes, fewer than
an image needs) and 35 ms of quiet after each of its pulses, 50 ms apart."""
SPLIT = {
    "spontaneous_s": 2.0,
    "trials": 4,
    "stim_electrodes": 3,
    "pair_electrodes": 2,
    "seed": 7,
    "artefact_uv_per_ua": 100,
}
"""A session whose pulses follow each other every 10 ms: quiet only before them."""


def _observe(path: Path, spontaneous: Path | None = None) -> object:
    """What hh-fit observes in the NWB file at `path` (and a spontaneous file)."""
    from substrates.adapters.conversions.mea_preprocessing import DEFAULT_PREPROCESSING
    from substrates.adapters.runs.hh_fit_inputs import observed, preprocessing_steps
    from substrates.backends.registry import create_backend
    from substrates.datasets.mea.nwb import read_nwb

    recording = read_nwb(path)
    quiet = None if spontaneous is None else read_nwb(spontaneous)
    model = create_backend("mea.jaxley", {}).cell_model(recording.positions_um)
    steps = preprocessing_steps(DEFAULT_PREPROCESSING, recording.sampling_hz)
    return observed(recording, model, 0, steps, path.name, "remove", quiet)


def _part(recording, start: int, end: int, stimulation) -> object:
    """Samples start…end of `recording` as a recording of its own, with `stimulation`."""
    raw = recording.get_traces(start, end, microvolts=False)
    from substrates.datasets.mea.recording import ArraySource

    return replace(recording, source=ArraySource(raw), samples=end - start, stimulation=stimulation)


def _shifted(stimulation, seconds: float, events: np.ndarray | None = None):
    """`stimulation`'s events (all, or `events`) timed `seconds` earlier."""
    from substrates.datasets.mea.recording import Stimulation

    chosen = np.arange(len(stimulation)) if events is None else events
    weights = stimulation.weights
    return Stimulation(
        stimulation.time_s[chosen] - seconds,
        tuple(stimulation.electrodes[k] for k in chosen),
        stimulation.current_ua[chosen],
        tuple(stimulation.shape[k] for k in chosen),
        None if weights is None else tuple(weights[k] for k in chosen),
    )


@pytest.fixture(scope="module")
def between(mea_session, tmp_path_factory) -> tuple[Path, object, object]:
    """BETWEEN written as NWB, its backend and ground truth."""
    from substrates.datasets.mea.nwb import write_nwb

    session = mea_session(**BETWEEN)
    path = tmp_path_factory.mktemp("between") / "between.nwb"
    write_nwb(session.recording(), path, "simulated by mea.jaxley")
    return path, session, session.ground_truth()


@pytest.fixture(scope="module")
def split(mea_session, tmp_path_factory) -> dict[str, Path]:
    """SPLIT as one NWB file ('whole'), and cut where its quiet ends into a spontaneous
    file and a stimulation file (its pulses timed from the cut), as two recordings of a
    lab's session."""
    from substrates.datasets.mea.nwb import write_nwb

    recording = mea_session(**SPLIT).recording()
    folder = tmp_path_factory.mktemp("split")
    cut = round((recording.stimulation.time_s.min() - 0.005) * recording.sampling_hz)
    files = {name: folder / f"{name}.nwb" for name in ("whole", "spontaneous", "stimulation")}
    write_nwb(recording, files["whole"])
    np.save(folder / "evoked.npy", mea_session(**SPLIT).ground_truth().evoked)
    none = _shifted(recording.stimulation, 0.0, np.array([], int))
    write_nwb(_part(recording, 0, cut, none), files["spontaneous"])
    later = _shifted(recording.stimulation, cut / recording.sampling_hz)
    write_nwb(_part(recording, cut, recording.samples, later), files["stimulation"])
    return files


def test_spikes_between_pulses_give_the_image(between) -> None:
    """Too few spikes before the first pulse for an image (the old refusal: '5 spontaneous
    spikes found'); the quiet spans between pulses hold the rest, and the spikes found
    there are the cell's: nearly all of its true spikes in those spans, few others."""
    from substrates.adapters.conversions.mea_preprocessing import (
        DEFAULT_PREPROCESSING,
        preprocess,
    )
    from substrates.adapters.runs.hh_fit_inputs import preprocessing_steps
    from substrates.adapters.runs.hh_fit_units import true_troughs
    from substrates.datasets.mea.nwb import read_nwb
    from substrates.models.hh.detection import spontaneous_spikes
    from substrates.models.hh.fit import MIN_SPIKES
    from substrates.models.hh.quiet import inside, quiet_spans

    path, session, truth = between
    recording = read_nwb(path)
    first_pulse = recording.stimulation.time_s.min()
    assert (truth.spike_times_s < first_pulse).sum() < MIN_SPIKES

    seen = _observe(path)
    assert seen.spikes >= 3 * MIN_SPIKES
    spans = quiet_spans(recording)
    model = session.cell_model(recording.positions_um)
    true = true_troughs(model, truth, recording.sampling_hz)[0]
    true = true[inside(spans, true, 20, 60)]
    detection = preprocess(recording, preprocessing_steps(DEFAULT_PREPROCESSING, 20_000.0))
    found = spontaneous_spikes(detection, 20, 60).samples
    near = np.abs(found[:, None] - true[None]).min(axis=1) <= 10  # 0.5 ms
    assert near.mean() >= 0.95 and near.sum() >= 0.85 * len(true), (near.sum(), len(true))


def test_a_separate_spontaneous_recording_gives_the_spikes(split) -> None:
    """The stimulation file alone has no quiet recording: refused in one line naming
    --spontaneous's remedy. With the spontaneous file beside it, the fit sees what it
    sees in the uncut session: the same spikes, image channel, patterns and responses (a
    trial's call moved at most where the cut filter's edge reaches)."""
    with pytest.raises(SubstratesError, match="less than 100 ms of quiet recording"):
        _observe(split["stimulation"])
    whole = _observe(split["whole"])
    cut = _observe(split["stimulation"], split["spontaneous"])
    assert cut.spikes == whole.spikes and cut.channel == whole.channel
    assert [r.pattern for r in cut.fitting] == [r.pattern for r in whole.fitting]
    assert [r.pattern for r in cut.held_out] == [r.pattern for r in whole.held_out]
    moved = [
        abs(a.spikes - b.spikes)
        for a, b in zip(cut.fitting + cut.held_out, whole.fitting + whole.held_out, strict=True)
    ]
    assert max(moved) <= 1 and sum(moved) <= 2, moved
    assert np.allclose(cut.image, whole.image, atol=0.5)
    for e, threshold in whole.thresholds_ua.items():
        assert cut.thresholds_ua[e] == pytest.approx(threshold, rel=0.1)


def test_a_spontaneous_recording_of_another_array_is_refused(split, tmp_path) -> None:
    from substrates.datasets.mea.nwb import read_nwb, write_nwb

    other = read_nwb(split["spontaneous"])
    fewer = replace(
        _part(other, 0, other.samples, other.stimulation),
        electrode_ids=other.electrode_ids + 100,
    )
    write_nwb(fewer, tmp_path / "other.nwb")
    with pytest.raises(SubstratesError, match="must be one array"):
        _observe(split["stimulation"], tmp_path / "other.nwb")


def _unusable(split: dict[str, Path], folder: Path) -> dict[str, Path]:
    """The uncut session with stimulation a fit cannot use: 'single' three single-trial
    pulses; 'silent' only the single-electrode patterns none of whose trials made the cell
    spike (the truth picks them: it builds the input, the refusal reads none of it)."""
    from substrates.datasets.mea.nwb import read_nwb, write_nwb

    recording = read_nwb(split["whole"])
    evoked = np.load(split["whole"].parent / "evoked.npy")
    stim = recording.stimulation
    single = np.flatnonzero(np.array([len(e) == 1 for e in stim.electrodes]))
    pattern = [(stim.electrodes[k], float(stim.current_ua[k])) for k in range(len(stim))]
    seen: dict[object, int] = {}
    for k in single[np.argsort(stim.current_ua[single], kind="stable")]:
        seen.setdefault(pattern[k], int(k))  # one trial of each, weakest first
    three = np.sort(np.array(list(seen.values())[:3]))
    spiking = {pattern[k] for k in single if evoked[k]}
    silent = np.array([k for k in single if pattern[k] not in spiking])
    files = {"single": folder / "single.nwb", "silent": folder / "silent.nwb"}
    write_nwb(replace(recording, stimulation=_shifted(stim, 0.0, three)), files["single"])
    write_nwb(replace(recording, stimulation=_shifted(stim, 0.0, silent)), files["silent"])
    return files


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("single", "were given 1 trial each (median); an activation threshold needs"),
        ("silent", "made the cell spike on half of its trials: thresholds lie above"),
    ],
)
def test_stimulation_that_cannot_constrain_a_fit_is_refused_before_anything(
    split, tmp_path, case, message
) -> None:
    files = _unusable(split, tmp_path)
    result = substrates(
        "run",
        "hh-fit",
        "--source",
        "mea_nwb",
        "--recording",
        str(files[case]),
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "runs").exists()


@pytest.mark.science
def test_fits_from_spikes_between_pulses_and_from_a_spontaneous_file(
    between, split, tmp_path
) -> None:
    """Both cases run through hh-fit to a fit and its held-out predictions."""
    import pyarrow.parquet as pq

    runs = {
        "between": ("--recording", str(between[0])),
        "cut": (
            "--recording",
            str(split["stimulation"]),
            "--spontaneous",
            str(split["spontaneous"]),
        ),
    }
    for name, args in runs.items():
        substrates(
            "run",
            "hh-fit",
            "--source",
            "mea_nwb",
            *args,
            "--simulations",
            "50",
            "--out",
            name,
            cwd=tmp_path,
        )
        rows = pq.read_table(only_run_folder(tmp_path / name) / "results.parquet").to_pylist()
        held = [r["correct"] for r in rows if r.get("set") == "held-out"]
        assert len(held) >= 10 and np.mean(held) >= 0.7, (name, np.mean(held))
