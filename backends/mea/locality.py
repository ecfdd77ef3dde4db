"""Which stimulation events a simulated cell must be simulated for.

On an array of hundreds of electrodes most pulses are far from any one cell: they inject
almost no current into it, and simulating the cell for them is most of a session's cost
(every cell times every event). `local_responses` simulates a cell's events in order of
their drive — the largest current a pulse injects into any of its compartments through
the activating function, |−L·φe·I| (nA) — one batch at a time, and stops once

- a whole batch evoked no spike and left under SILENT_UV at every electrode, and
- every event left drives the cell under DRIVE_MARGIN of the least drive that evoked a
  spike so far (no spike yet: any drive).

The events left are recorded as silent for that cell, with no potential. What that
assumes, and how it is bounded:

- a weaker drive does not evoke what a stronger one did not: checked by the silent
  batch, made of the strongest events left out, and by the margin;
- the cell does not fire from its membrane noise alone: a cell that does spikes within
  the last batch too (a silent batch of 64 bounds the probability under 3/64 a window at
  95%), and a spike at a weak event lowers the least spiking drive, so such a cell is
  simulated for (nearly) every event;
- what a silent event adds at the electrodes (the membrane's active, subthreshold
  current) is at most the silent batch's largest, reported as `bound_uv`.

Units: nA (drive), µA (electrode currents), µV (potentials)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

SILENT_UV = 2.0
"""The most a batch of events may leave at any electrode (µV, after the passive membrane
transient is removed) and still count as silent: under half of the default electrode
noise (5 µV RMS). Measured on the default 8 × 8 session's three cells: events driving
a cell under half its least spiking drive leave at most 0.9–1.5 µV."""

DRIVE_MARGIN = 0.5
"""Events are left out only below this fraction of the least drive that evoked a spike."""


@dataclass(frozen=True)
class LocalResponses:
    """One cell's responses to E events: spiked (E,), the simulated events' indices (S,),
    and bound_uv: the most a left-out event could add at an electrode (the silent batch's
    largest; 0 if none was left out)."""

    spiked: np.ndarray
    simulated: np.ndarray
    bound_uv: float

    @property
    def left_out(self) -> int:
        return len(self.spiked) - len(self.simulated)


@dataclass(frozen=True)
class Locality:
    """What `local_events` saved in a session: cell-events simulated, of all there are
    (cells × events), the most a left-out one could have added at an electrode (µV), and
    how many cells (per pulse shape) had none left out (among them those that fire from
    their membrane noise alone)."""

    simulated: int
    total: int
    bound_uv: float
    whole: int


def peak_drive_na(drive_na_per_ua: np.ndarray, currents_ua: np.ndarray) -> np.ndarray:
    """(E,) nA: each event's largest injected current over the cell's compartments, for
    the cell's drive matrix (n, m) nA/µA and the events' electrode currents (E, m) µA."""
    from scipy import sparse

    currents = sparse.csr_matrix(currents_ua)
    return np.abs(np.asarray(currents @ drive_na_per_ua.T)).max(axis=1, initial=0.0)


def until_silent(
    peaks: np.ndarray,
    batch: int,
    simulate: Callable[[np.ndarray, int], tuple[np.ndarray, float]],
) -> tuple[np.ndarray, np.ndarray, float]:
    """The rule above, on E events of drives `peaks` (E,) nA. simulate(indices, count)
    runs one batch and gives whether each of its first `count` events spiked and the
    largest |potential| they left (µV; 0.0 where potentials are not computed); a short
    last batch comes padded to `batch` by repeating its events, so one compiled size
    serves every cell. Returns spiked (E,), the simulated events' indices, and the
    silent batch's largest potential (0.0 if nothing was left out)."""
    events = len(peaks)
    order = np.argsort(-peaks, kind="stable")
    spiked = np.zeros(events, bool)
    least, done = np.inf, 0
    while done < events:
        chosen = order[done : done + batch]
        whole = np.resize(chosen, batch) if events >= batch else chosen
        hit, largest = simulate(whole, len(chosen))
        spiked[chosen], done = hit, done + len(chosen)
        least = min(least, peaks[chosen][hit].min(initial=np.inf))
        silent = not hit.any() and largest <= SILENT_UV
        if silent and done < events and peaks[order[done]] <= DRIVE_MARGIN * least:
            return spiked, order[:done], largest
    return spiked, order, 0.0


def local_responses(
    model: Any,
    theta: np.ndarray,
    currents_ua: np.ndarray,
    shape: str,
    noise_ua_cm2: float,
    seed: int,
    deliver: Callable[[np.ndarray, np.ndarray], None],
) -> LocalResponses:
    """The cell `theta` (8,) under events with electrode currents (E, m) µA of one pulse
    `shape`, simulated by `model` (a simulation.CellSimulation) only as far as the rule
    above needs. Each batch's electrode potentials (B, m, samples) µV go to
    `deliver(indices, potentials)` as they are simulated, so no more than a batch is
    held. Every simulated event has the membrane noise it has when all E are simulated
    with `seed`, so its response is the same."""
    thetas = np.broadcast_to(theta, (len(currents_ua), len(theta)))

    def simulate(indices: np.ndarray, count: int) -> tuple[np.ndarray, float]:
        hit, potentials = model.responses(thetas, currents_ua, shape, noise_ua_cm2, seed, indices)
        deliver(indices[:count], potentials[:count])
        return hit[:count], float(np.abs(potentials[:count]).max(initial=0.0))

    peaks = peak_drive_na(model.drive_na_per_ua(theta), currents_ua)
    spiked, simulated, bound = until_silent(peaks, model.batch, simulate)
    return LocalResponses(spiked, simulated, bound)
