"""`substrates run hh-fit`: fit a Hodgkin–Huxley cell to an MEA recording and predict its
responses to held-out stimulation patterns; the same code on a recorded file or on a
simulated session. A simulated session is first written as NWB and fitted from that file
as if it were real; its hidden parameters are then set beside the recovered ones."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ...backends.errors import SubstratesError
from ...backends.mea.base import CellModel, GroundTruth, MEABackend
from ...datasets.mea.recording import Recording
from ...models.hh.artefacts import Artefacts
from ...models.hh.fit import CellFit, Observed, fit_cell, observe
from ..config import ConfigError, backend_from_config, load_config
from ..conversions.mea_preprocessing import DEFAULT_PREPROCESSING
from .folder import RunFolder
from .hh_fit_units import Unit, sorted_units, true_troughs
from .plots import close_figure, hh_fit_figure
from .progress import Progress
from .provenance import now, provenance, recording_failure


def run_hh_fit(
    *,
    hardware: str | Path,
    recording: str | None,
    simulator: str | Path,
    simulations: int,
    cells: int,
    seed: int | None,
    out: str | Path,
    progress: Progress | None = None,
    stimulation: str | None = None,
    stimulation_times: str | None = None,
    preprocess: str = DEFAULT_PREPROCESSING,
    artefacts: str = "remove",
    sorter: str = "none",
) -> RunFolder:
    """Fit the cell of `hardware` (a recording file's config, with `recording` to name the
    file, or a simulator's config: then `cells` sessions with seeds seed, seed + 1, …, by
    default from the config's) with the CellModel of `simulator`, from `simulations` NPE
    simulations per cell (NPE seeded with seed + cell, by default 0 + cell). `stimulation`:
    a BIDS events.tsv, or with `stimulation_times` ("ttl": the Litke TTL line; "neo:NAME":
    a neo event channel) a protocol table of the pulses those times mark, in order.
    `preprocess`: the SpikeInterface chain spikes are detected on (mea_preprocessing.py;
    'none': the raw traces); the image to fit always comes from the raw traces.
    `artefacts`: 'remove' the stimulation artefact before evoked spikes are detected
    (models/hh/artefacts.py) or 'keep' the traces as they are. `sorter`: 'none' (the
    recording holds one cell) or a SpikeInterface sorter (tridesclous2, spykingcircus2)
    whose units are each fitted where their spikes and evoked responses suffice
    (hh_fit_units.py); a simulated session's sorting is scored against its cells."""
    source, recording_file = hardware, recording
    resolved = load_config(source)
    if resolved.config.substrate != "mea":
        raise ConfigError(resolved.path, "substrate", "hh-fit needs an mea source")
    if simulations < 50 or cells < 1:
        raise SubstratesError("--simulations must be ≥ 50 and --cells ≥ 1")
    if recording_file is not None:
        if "path" not in resolved.backend_class.Options.model_fields:
            raise ConfigError(resolved.path, "backend", "--recording needs a recording-file config")
        folders = getattr(resolved.backend_class, "accepts_folders", False)
        if not (Path(recording_file).is_file() or (folders and Path(recording_file).is_dir())):
            raise SubstratesError(f"--recording {recording_file}: no such file")
        path = {"path": str(recording_file)}
        resolved = replace(resolved, options=resolved.options.model_copy(update=path))
    backend = backend_from_config(resolved)
    engine_config = load_config(simulator)
    engine = backend_from_config(engine_config)
    assert isinstance(backend, MEABackend) and isinstance(engine, MEABackend)
    if not engine.capabilities.models_cells:
        raise ConfigError(engine_config.path, "backend", "--simulator must simulate cells")
    simulated = backend.capabilities.models_cells
    if simulated and stimulation is not None:
        raise SubstratesError(
            "--stimulation needs a recording-file source (--source mea_nwb, "
            "mea_litke or mea_neo with --recording)"
        )
    if stimulation_times is not None and stimulation is None:
        raise SubstratesError(
            "--stimulation-times needs --stimulation: the protocol table of what each pulse was"
        )
    steps = _steps(preprocess, backend.capabilities.sampling_hz if simulated else None)
    count = cells if simulated else 1  # sessions to simulate, or the one recording
    where = str(getattr(backend.options, "path", backend.name))  # what errors name
    observed = None
    skipped_rows = None
    if not simulated:  # a bad file is refused before any folder is made
        data, skipped_rows = _recorded(backend, stimulation, stimulation_times)
        steps = _steps(preprocess, data.sampling_hz)
        if sorter == "none":
            observed = _observe(
                data,
                engine.cell_model(data.positions_um),
                seed or 0,
                steps,
                where,
                artefacts == "remove",
            )
    folder = RunFolder.create(out, "hh-fit")
    parameters = {
        "recording": recording_file,
        "simulator": str(engine_config.path),
        "simulations": simulations,
        "cells": count,
        "seed": seed,
        "stimulation": stimulation,
        "stimulation_times": stimulation_times,
        "stimulation_rows_skipped": skipped_rows,
        "preprocess": preprocess,
        "artefacts": artefacts,
        "sorter": sorter,
    }
    record = provenance("hh-fit", resolved, backend, parameters)
    record["preprocessing"] = {"library": "spikeinterface", "pipeline": steps}
    record["simulator_backend"] = engine.to_dict()
    folder.write_json("provenance.json", record)
    began = time.perf_counter()
    rows: list[dict[str, Any]] = []
    fits: list[tuple[CellFit, dict[str, float] | None]] = []
    removed: list[Artefacts] = []
    total = simulations * count
    with recording_failure(folder, record):
        for k in range(count):

            def step(done: int, _: int, k: int = k) -> None:
                if progress:
                    progress("simulations", k * simulations + done, total)

            truths: GroundTruth | None = None
            if simulated:
                first = backend.options.seed if seed is None else seed
                session = type(backend)({**backend.options.model_dump(), "seed": first + k})
                name = f"cell{k}.nwb"
                _write_session(session, folder.file(name))
                data, truths = _read(folder.file(name)), session.ground_truth()
                label = f"seed {first + k}"
            else:  # the one recording, read and observed before the folder was made
                label = where
            model = engine.cell_model(data.positions_um)
            targets: list[tuple[Observed, GroundTruth | None]] = []
            if sorter != "none":
                found, sorting = _units(
                    data,
                    model,
                    (seed or 0) + k,
                    steps,
                    sorter,
                    artefacts == "remove",
                    truths,
                    label,
                    session if simulated else None,
                )
                record.setdefault("sorting", []).append(sorting)
                targets = [
                    (u.observed, None if truths is None or u.cell is None else truths.cells[u.cell])
                    for u in found
                ]
            else:
                if simulated:
                    observed = _observe(
                        data, model, (seed or 0) + k, steps, label, artefacts == "remove"
                    )
                assert observed is not None
                targets = [(observed, truths)]
            for seen, cell in targets:
                truth = None if cell is None else cell.parameters
                try:
                    fit = fit_cell(data, model, simulations, (seed or 0) + k, step, seen)
                except ValueError as error:
                    raise SubstratesError(f"{label}: {error}") from None
                rows += _rows(
                    len(fits), fit, truth, None if cell is None else _true_outcomes(data, cell)
                )
                fits.append((fit, truth))
                if seen.artefacts is not None:
                    removed.append(seen.artefacts)
        if not fits:
            raise SubstratesError(
                f"{where}: no sorted unit had the spikes and evoked responses "
                "to fit (see provenance.json: sorting)"
            )
    columns = list(dict.fromkeys(key for row in rows for key in row))  # parameters', patterns'
    folder.write_table(
        "results.parquet",
        pa.Table.from_pylist([{key: row.get(key) for key in columns} for row in rows]),
    )
    figure = hh_fit_figure(fits, f"hh-fit on {backend.name} with {engine.name}")
    folder.save_figure("hh_fit.png", figure)
    close_figure(figure)
    summary = _summary(fits)
    if "sorting" in record:
        summary["units_fitted"] = len(fits)
        scores = [s["accuracy"] for r in record["sorting"] for s in r.get("scores", [])]
        if scores:
            summary["mean_sorting_accuracy"] = float(np.mean(scores))
    if removed:  # what artefact removal took away, over every cell's session
        summary["artefact_peak_uv"] = max(a.peak_uv for a in removed)
        summary["artefact_saturated_fraction"] = float(
            np.mean([a.saturated_fraction for a in removed])
        )
    record.update(
        status="complete",
        finished_at=now(),
        summary=summary,
        wall_time_s=round(time.perf_counter() - began, 3),
    )
    folder.write_json("provenance.json", record)
    return folder


def _steps(spec: str, sampling_hz: float | None) -> list[dict[str, Any]]:
    """The SpikeInterface pipeline of `spec`, or one line naming what is wrong with it."""
    from ..conversions.mea_preprocessing import PreprocessingError, parse_preprocessing

    try:
        return parse_preprocessing(spec, sampling_hz)
    except PreprocessingError as error:
        raise SubstratesError(f"--preprocess: {error}") from None


def _observe(
    recording: Recording,
    model: CellModel,
    seed: int,
    steps: list[dict[str, Any]],
    label: str,
    remove_artefacts: bool,
) -> Observed:
    """What the fit needs from `recording`, spikes detected after `steps`."""
    from ..conversions.mea_preprocessing import preprocess

    try:
        return observe(recording, model, seed, preprocess(recording, steps), remove_artefacts)
    except ValueError as error:
        raise SubstratesError(f"{label}: {error}") from None


def _units(
    data: Recording,
    model: CellModel,
    seed: int,
    steps: list[dict[str, Any]],
    sorter: str,
    artefacts: bool,
    truths: GroundTruth | None,
    label: str,
    session: MEABackend | None,
) -> tuple[list[Unit], dict[str, Any]]:
    """The sorted units of `data` worth fitting, and the sorting's record."""
    from ..conversions.mea_preprocessing import preprocess

    troughs = None
    if truths is not None and session is not None:  # scoring only: the generating model
        troughs = true_troughs(session.cell_model(data.positions_um), truths, data.sampling_hz)
    return sorted_units(
        data, preprocess(data, steps), model, seed, sorter, artefacts, troughs, label
    )


def _recorded(
    backend: MEABackend, stimulation: str | None, times: str | None
) -> tuple[Recording, int | None]:
    """The backend's recording, with its stimulation from a BIDS events.tsv when given, or
    from a protocol table at the pulse times the recording marks (and how many of the
    table's rows were other events)."""
    recording = backend.recording()
    if stimulation is None:
        return recording, None
    from ...datasets.mea.bids_events import read_events_tsv
    from ...datasets.mea.recording import RecordingError

    try:
        onsets = None if times is None else _pulse_times(recording, times)
        sidecar = read_events_tsv(stimulation, recording.electrode_ids, onsets)
    except RecordingError as error:
        raise SubstratesError(str(error)) from None
    return replace(recording, stimulation=sidecar.stimulation), sidecar.skipped_rows


def _pulse_times(recording: Any, times: str) -> Any:
    """Pulse onsets (s) from the recording: its TTL line or a neo event channel."""
    from ...datasets.mea.litke_bin import LitkeSource
    from ...datasets.mea.neo_files import NeoSource
    from ...datasets.mea.triggers import neo_event_onsets, ttl_onsets

    if times == "ttl":
        if not isinstance(recording.source, LitkeSource):
            raise SubstratesError(
                "--stimulation-times ttl reads the TTL line of a Litke "
                "recording (--source mea_litke)"
            )
        return ttl_onsets(recording.source.ttl(), recording.sampling_hz)
    if times.startswith("neo:") and len(times) > 4:
        if not isinstance(recording.source, NeoSource):
            raise SubstratesError(
                "--stimulation-times neo:NAME reads an event channel of a "
                "neo recording (--source mea_neo)"
            )
        source = recording.source
        return neo_event_onsets(source.rawio, times[4:], source.stream)
    raise SubstratesError(f"--stimulation-times {times!r}: 'ttl' or 'neo:<event channel>'")


def _write_session(session: MEABackend, path: Path) -> None:
    from ...datasets.mea.nwb import write_nwb

    write_nwb(session.recording(), path, f"simulated by {session.name}: {session.to_dict()}")


def _read(path: Path) -> Recording:
    from ...datasets.mea.nwb import read_nwb

    return read_nwb(path)


def _true_outcomes(data: Recording, cell: GroundTruth) -> dict[Any, float]:
    """Pattern → the fraction of its trials that truly made `cell` spike (the
    simulator's record: it scores the prediction, never feeds the fit)."""
    from ...models.hh.patterns import responses

    return {r.pattern: r.probability for r in responses(data, cell.evoked)}


def _rows(
    cell: int,
    fit: CellFit,
    truth: dict[str, float] | None,
    outcomes: dict[Any, float] | None = None,
) -> list[dict[str, Any]]:
    """results.parquet's rows of one fitted cell; `outcomes`: each pattern's true spike
    probability where the simulator knows it (columns true_probability, correct_vs_truth)."""
    rows = []
    mean, sd = fit.posterior.spread(fit.parameters)
    for k, p in enumerate(fit.parameters):
        rows.append(
            {
                "cell": cell,
                "kind": "parameter",
                "name": p.name,
                "description": p.description,
                "prior_low": p.low,
                "prior_high": p.high,
                "truth": None if truth is None else truth[p.name],
                "npe_best": float(fit.posterior.best[k]),
                "npe_mean": float(mean[k]),
                "npe_sd": float(sd[k]),
                "refined": float(fit.refined.theta[k]),
                "calibrated": float(fit.candidates["calibrated"][k]),
                "fitted": float(fit.theta[k]),
                "chosen": fit.chosen,
            }
        )
    for name, theta in fit.candidates.items():  # what each candidate would have given
        rows.append(
            {
                "cell": cell,
                "kind": "candidate",
                "name": name,
                "chosen": fit.chosen,
                "score": fit.scores[name],
                "held_out_accuracy": fit.accuracy_held_out_of(name),
                "error_prior_fraction": None if truth is None else _error(fit, theta, truth),
            }
        )
    sets: list[tuple[str, list[Any], np.ndarray, dict[str, np.ndarray]]] = [
        ("fitting", fit.fitting, fit.predicted_fitting, {}),  # candidates: held-out only
        ("held-out", fit.held_out, fit.predicted_held_out, fit.predicted_held_out_by),
    ]
    for group, found, predicted, by in sets:
        for k, (r, spike) in enumerate(zip(found, predicted, strict=True)):
            rows.append(
                {
                    "cell": cell,
                    "kind": "pattern",
                    "name": r.pattern.label(),
                    "set": group,
                    "electrodes": len(r.pattern.channels),
                    "total_current_ua": float(np.abs(r.pattern.currents_ua).sum()),
                    "trials": r.trials,
                    "spikes": r.spikes,
                    "observed_probability": r.probability,
                    "predicted_spike": bool(spike),
                    "correct": bool(spike) == (r.probability > 0.5),
                    **{f"predicted_{c}": bool(v[k]) for c, v in by.items()},
                }
            )
            if outcomes is not None and r.pattern in outcomes:
                rows[-1]["true_probability"] = outcomes[r.pattern]
                rows[-1]["correct_vs_truth"] = bool(spike) == (outcomes[r.pattern] > 0.5)
    return rows


def _error(fit: CellFit, theta: np.ndarray, truth: dict[str, float]) -> float:
    """Mean distance of `theta` from the truth, each parameter in its prior's width."""
    return float(
        np.mean(
            [
                p.distance(v, truth[p.name]) / (p.high - p.low)
                for p, v in zip(fit.parameters, theta, strict=True)
            ]
        )
    )


def _summary(fits: list[tuple[CellFit, dict[str, float] | None]]) -> dict[str, Any]:
    held = [f.accuracy_held_out for f, _ in fits]
    summary: dict[str, Any] = {
        "cells": len(fits),
        "held_out_patterns": int(sum(len(f.held_out) for f, _ in fits)),
        "mean_held_out_accuracy": float(np.nanmean(held)),
        "mean_fitting_accuracy": float(np.nanmean([f.accuracy_fitting for f, _ in fits])),
        "chosen": ",".join(f.chosen for f, _ in fits),
    }
    for name in fits[0][0].predicted_held_out_by:  # candidates, then baselines
        summary[f"mean_held_out_accuracy_{name}"] = float(
            np.nanmean([f.accuracy_held_out_of(name) for f, _ in fits])
        )
    known = [(f, t) for f, t in fits if t is not None]  # sorted units may match no cell
    if known:
        for name in ("npe", "refined", "calibrated", "fitted"):
            summary[f"mean_error_{name}_prior_fraction"] = float(
                np.mean(
                    [
                        _error(f, f.theta if name == "fitted" else f.candidates[name], t)
                        for f, t in known
                    ]
                )
            )
    return summary
