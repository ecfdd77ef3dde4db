"""`substrates run hh-fit`: fit a Hodgkin–Huxley cell to an MEA recording and predict its
responses to held-out stimulation patterns; the same code on a recorded file or on a
simulated session. A simulated session is first written as NWB and fitted from that file
as if it were real; its hidden parameters are then set beside the recovered ones."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ...backends.mea.base import MEABackend, MEASimulatorBackend
from ...datasets.mea.recording import Recording
from ...errors import OptionError, SubstratesError
from ...models.hh.amortised import Bank, build_bank, unit_posterior
from ...models.hh.artefacts import Artefacts
from ...models.hh.fit import CellFit, Observed, fit_cell
from ...models.hh.report import result_rows, results_table, summary, true_outcomes
from ..runs.hh_fit_inputs import fit_targets, preprocessing_steps, read_session, recorded
from ..runs.plots import hh_fit_figure
from .hh_fit import HhFitParameters
from .lifecycle import Outcome, RunContext, log

SECONDS_PER_SIMULATION = 0.5
"""One NPE simulation of the cell on two cores with JAX (s): 1,000 of them took about 9 min
per cell, 50 about 45 s (compilation included), measured for the README's tour."""
SECONDS_TO_START = 30.0
"""Reading or simulating the session and compiling the cell's simulation (s)."""
SECONDS_PER_BANKED_CELL = 0.15
"""One cell of an amortised fit's bank on two cores: its spike and seven thresholds (s)."""
SECONDS_PER_UNIT = 17.0
"""One cell fitted from the bank: observation, NPE on the bank, refinement, calibration
and prediction on the 512-electrode array (s; the 110-cell scored session of
benchmarks/mea_amortised.py: 6.9 s a unit observing two at a time, 10.4 s fitting)."""


def run_hh_fit(p: HhFitParameters, run: RunContext) -> Outcome:
    """Fit the cell of the `hardware` source (a recording file's config and `p.recording`,
    or a simulator's: then `p.cells` sessions seeded seed, seed + 1, …, by default the
    config's) with the CellModel of the `simulator` backend, from `p.simulations` NPE
    simulations per cell (NPE seeded with seed + cell), or with `p.bank` from one bank of
    that many cells per array and pulse shape (models/hh/amortised.py; seeded with seed);
    with `p.sorter`, each sorted unit is fitted. A recording is read and observed before
    the run folder is made. Of several simulated sessions, one whose cell cannot be
    observed is refused (its reason logged, kept in provenance as `sessions_refused` and
    counted in the summary) and the others are fitted; the run fails when all are."""
    backend = run.backend("hardware", MEABackend)
    engine = run.backend("simulator", MEASimulatorBackend)
    simulated, seed = backend.capabilities.models_cells, p.seed or 0
    for option in ("stimulation", "spontaneous"):
        if simulated and getattr(p, option) is not None:
            raise OptionError(
                "needs a recording-file hardware config (mea_nwb, mea_litke, mea_maxwell or "
                "mea_neo)",
                option=option,
            )
    where = str(getattr(backend.options, "path", backend.name))  # what errors name
    data, skipped = recorded(backend, p.stimulation, p.stimulation_times)
    quiet = None
    if p.spontaneous is not None:
        quiet = run.reconfigured("hardware", MEABackend, path=p.spontaneous).recording()
    rate = data.sampling_hz if data else backend.capabilities.sampling_hz
    steps = preprocessing_steps(p.preprocess, rate)
    targets_of = partial(
        fit_targets,
        steps=steps,
        sorter=p.sorter,
        artefacts=p.artefacts,
        spontaneous=quiet,
        amortise=p.bank is not None,
    )
    first = getattr(backend.options, "seed", 0) if p.seed is None else p.seed
    count = p.cells if simulated else 1  # sessions to simulate, or the one recording
    if data is not None:  # a recording's observation is checked before any folder is made
        model = engine.cell_model(data.positions_um)
        given = targets_of(data, model, seed, truths=None, label=where, session=None)
    fitted = count if data is None else len(given[0])  # a recording's units are known now
    cells = f"per cell × {fitted} cells" if fitted > 1 else "of the cell"
    if p.bank is None:
        run.expect(
            SECONDS_TO_START + SECONDS_PER_SIMULATION * p.simulations * fitted,
            f"{p.simulations:,} NPE simulations {cells}, ~{SECONDS_PER_SIMULATION:g} s each, "
            "dominate (--simulations sets them)",
        )
    else:
        run.expect(
            SECONDS_TO_START + SECONDS_PER_BANKED_CELL * p.bank + SECONDS_PER_UNIT * fitted,
            f"a bank of {p.bank:,} cells, ~{SECONDS_PER_BANKED_CELL:g} s each, then "
            f"~{SECONDS_PER_UNIT:g} s a cell fitted from it (--bank sets it)",
        )
    simulator = str(run.config("simulator").path)
    parameters = p.model_dump(exclude={"hardware"}) | {"cells": count, "simulator": simulator}
    pipeline = {"library": "spikeinterface", "pipeline": steps}
    folder = run.begin(parameters | {"stimulation_rows_skipped": skipped}, preprocessing=pipeline)
    rows: list[dict[str, Any]] = []
    fits: list[tuple[CellFit, dict[str, float] | None]] = []
    removed: list[Artefacts] = []
    banks: dict[tuple[bytes, str], Bank] = {}  # one per array and pulse shape
    refused: list[str] = []  # simulated sessions whose cell could not be observed, and why
    for k in range(count):
        truths, label = None, where
        if simulated:
            session = run.reconfigured("hardware", MEASimulatorBackend, seed=first + k)
            session.progress = partial(run.report, "session cells")
            data, truths = read_session(session, folder.file(f"cell{k}.nwb"))
            model, label = engine.cell_model(data.positions_um), f"seed {first + k}"
            try:
                given = targets_of(
                    data, model, seed + k, truths=truths, label=label, session=session
                )
            except SubstratesError as error:
                if count == 1:
                    raise
                refused.append(str(error))  # the other sessions are still fitted
                log.warning(f"session refused, the others go on: {error}")
                continue
        targets, sorting = given
        assert data is not None  # the recording, or this session's
        if sorting is not None:
            run.record.setdefault("sorting", []).append(sorting)
        for target, cell in targets:

            def step(done: int, _: int, k: int = k) -> None:
                run.report("simulations", k * p.simulations + done, p.simulations * count)

            try:
                posterior = None
                if p.bank is not None:
                    bank = _bank(banks, data, engine, target, p.bank, seed, run)
                    posterior = unit_posterior(bank, model, data.positions_um, target, seed + k)
                fit = fit_cell(data, model, p.simulations, seed + k, step, target, posterior)
            except ValueError as error:
                raise SubstratesError(f"{label}: {error}") from None
            truth = None if cell is None else cell.parameters
            outcomes = None if cell is None else true_outcomes(data, cell)
            rows += result_rows(len(fits), fit, truth, outcomes, session=label)
            fits.append((fit, truth))
            removed += [target.artefacts] if target.artefacts is not None else []
    if len(refused) == count:
        raise SubstratesError(f"every session was refused: {'; '.join(refused)}")
    if banks:
        run.record["banks"] = [
            {"cells": len(b.theta), "drawn": b.drawn, "shape": b.shape, "seed": seed}
            for b in banks.values()
        ]
    table = results_table(rows, where)
    figure = hh_fit_figure(fits, f"hh-fit on {backend.name} with {engine.name}")
    headline = summary(fits, run.record.get("sorting", []), removed)
    if refused:
        run.record["sessions_refused"] = refused
        headline["sessions_refused"] = len(refused)
    return Outcome(table, headline, figures={"hh_fit.png": figure})


def _bank(
    banks: dict[tuple[bytes, str], Bank],
    data: Recording,
    engine: MEASimulatorBackend,
    target: Observed,
    draws: int,
    seed: int,
    run: RunContext,
) -> Bank:
    """The bank for `data`'s array and `target`'s pulse shape, built on first use."""
    key = (np.asarray(data.positions_um, float).tobytes(), target.observation.shape)
    if key not in banks:
        banks[key] = build_bank(
            engine.cell_model,
            data.positions_um,
            draws,
            target.observation.at,
            target.observation.shape,
            seed,
            lambda stage, done, total: run.report(f"bank, {stage}", done, total),
        )
    return banks[key]
