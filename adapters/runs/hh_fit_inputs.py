"""What hh-fit reads before it fits: the preprocessing chain, a recording with its
stimulation (a BIDS events.tsv, or a protocol table at the pulse times the recording
marks), a simulated session written as NWB and read back, and the observation to fit (one
cell's, or each sorted unit's)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ...backends.mea.base import CellModel, GroundTruth, MEABackend, MEASimulatorBackend
from ...datasets.mea.recording import Recording
from ...errors import OptionError, SubstratesError
from ...models.hh import amortised
from ...models.hh.artefacts import ArtefactHandling
from ...models.hh.fit import Observed, observe
from .hh_fit_units import Unit, sorted_units, true_troughs


def preprocessing_steps(spec: str, sampling_hz: float | None) -> list[dict[str, Any]]:
    """The SpikeInterface pipeline of `spec`, or one line naming what is wrong with it."""
    from ..conversions.mea_preprocessing import PreprocessingError, parse_preprocessing

    try:
        return parse_preprocessing(spec, sampling_hz)
    except PreprocessingError as error:
        error.option = "preprocess"
        raise


def _as_detected(
    spontaneous: Recording | None, steps: list[dict[str, Any]]
) -> tuple[Recording, Recording] | None:
    """A separate spontaneous recording as recorded and as preprocessed for detection."""
    from ..conversions.mea_preprocessing import preprocess

    return None if spontaneous is None else (spontaneous, preprocess(spontaneous, steps))


def observed(
    recording: Recording,
    model: CellModel,
    seed: int,
    steps: list[dict[str, Any]],
    label: str,
    artefacts: ArtefactHandling,
    spontaneous: Recording | None = None,
    fitting_within_um: float | None = None,
) -> Observed:
    """What the fit needs from `recording` (and a separate `spontaneous` recording of
    the same array, when given), spikes detected after `steps`; `fitting_within_um` as
    fit.observe's."""
    from ..conversions.mea_preprocessing import preprocess

    quiet = _as_detected(spontaneous, steps)
    detection = preprocess(recording, steps)
    try:
        return observe(
            recording,
            model,
            seed,
            detection,
            artefacts,
            spontaneous=quiet,
            fitting_within_um=fitting_within_um,
        )
    except ValueError as error:
        raise SubstratesError(f"{label}: {error}") from None


def units(
    data: Recording,
    model: CellModel,
    seed: int,
    steps: list[dict[str, Any]],
    sorter: str,
    artefacts: ArtefactHandling,
    truths: GroundTruth | None,
    label: str,
    session: MEABackend | None,
    spontaneous: Recording | None = None,
    fitting_within_um: float | None = None,
) -> tuple[list[Unit], dict[str, Any]]:
    """The sorted units of `data` (or of a separate `spontaneous` recording of the array)
    worth fitting, and the sorting's record; `fitting_within_um` as fit.observe's. The
    preprocessed recording is computed once (mea_preprocessing.materialised): each
    unit's observation reads all of it, and filtering it again for each took most of
    their time (29 s a unit on a 10-cell, 512-electrode session)."""
    from ..conversions.mea_preprocessing import materialised, preprocess

    troughs = None
    if truths is not None and session is not None:  # scoring only: the generating model
        troughs = true_troughs(session.cell_model(data.positions_um), truths, data.sampling_hz)
    quiet = _as_detected(spontaneous, steps)
    detection = materialised(preprocess(data, steps))  # every unit reads all of it
    return sorted_units(
        data, detection, model, seed, sorter, artefacts, troughs, label, quiet, fitting_within_um
    )


def recorded(
    backend: MEABackend, stimulation: str | None, times: str | None
) -> tuple[Recording | None, int | None]:
    """A recording backend's recording, with its stimulation from a BIDS events.tsv when
    given, or from a protocol table at the pulse times the recording marks (and how many of
    the table's rows were other events); (None, None) for a simulator, whose sessions are
    made one by one."""
    if backend.capabilities.models_cells:
        return None, None
    recording = backend.recording()
    if stimulation is None:
        return recording, None
    from ...datasets.mea.bids_events import read_events_tsv

    onsets = None if times is None else _pulse_times(recording, times)
    sidecar = read_events_tsv(stimulation, recording.electrode_ids, onsets)
    return replace(recording, stimulation=sidecar.stimulation), sidecar.skipped_rows


def _pulse_times(recording: Any, times: str) -> Any:
    """Pulse onsets (s) from the recording: its TTL line or a neo event channel."""
    from ...datasets.mea.litke_bin import LitkeSource
    from ...datasets.mea.maxwell import MaxWellSource, bits_onsets
    from ...datasets.mea.neo_files import NeoSource
    from ...datasets.mea.triggers import neo_event_onsets, ttl_onsets

    if times == "ttl":
        if isinstance(recording.source, MaxWellSource):
            return bits_onsets(recording.source.path, recording.sampling_hz)
        if not isinstance(recording.source, LitkeSource):
            raise OptionError(
                "ttl reads the TTL line of a Litke recording or a MaxWell file's bits "
                "table (--source mea_litke or mea_maxwell)",
                option="stimulation_times",
            )
        return ttl_onsets(recording.source.ttl(), recording.sampling_hz)
    if times.startswith("neo:") and len(times) > 4:
        if not isinstance(recording.source, NeoSource):
            raise OptionError(
                "neo:NAME reads an event channel of a neo recording (--source mea_neo)",
                option="stimulation_times",
            )
        source = recording.source
        return neo_event_onsets(source.rawio, times[4:], source.stream)
    raise OptionError(f"{times!r}: 'ttl' or 'neo:<event channel>'", option="stimulation_times")


def read_session(session: MEASimulatorBackend, path: Path) -> tuple[Recording, GroundTruth]:
    """A simulated session written as NWB to `path` and read back, as a real file is, and
    the simulator's truth (which scores the fit, never feeds it)."""
    from ...datasets.mea.nwb import read_nwb, write_nwb

    write_nwb(session.recording(), path, f"simulated by {session.name}: {session.to_dict()}")
    return read_nwb(path), session.ground_truth()


def fit_targets(
    data: Recording,
    model: CellModel,
    seed: int,
    steps: list[dict[str, Any]],
    sorter: str,
    artefacts: ArtefactHandling,
    truths: GroundTruth | None,
    label: str,
    session: MEABackend | None,
    spontaneous: Recording | None = None,
    amortise: bool = False,
) -> tuple[list[tuple[Observed, GroundTruth | None]], dict[str, Any] | None]:
    """What to fit in one recording: its one cell's observation with the cell's truth
    where a simulator knows it, or (with a sorter) each sorted unit's, with the cell it
    matched; and the sorting's record (None without a sorter). `spontaneous`: a separate
    recording of spontaneous activity on the same array, where spikes are found;
    `artefacts`: what happens to the stimulation artefact (artefacts.ArtefactHandling);
    `amortise`: fitting electrodes among the threshold ring of an amortised fit's bank
    (models/hh/amortised.py)."""
    within = None
    if amortise:
        within = amortised.RING_PITCHES * amortised.pitch_um(data.positions_um)
    if sorter == "none":
        seen = observed(data, model, seed, steps, label, artefacts, spontaneous, within)
        return [(seen, truths)], None
    found, sorting = units(
        data, model, seed, steps, sorter, artefacts, truths, label, session, spontaneous, within
    )
    known = [None if truths is None or u.cell is None else truths.cells[u.cell] for u in found]
    return [(u.observed, cell) for u, cell in zip(found, known, strict=True)], sorting
