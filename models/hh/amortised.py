"""Amortised fits for a whole array: one bank of simulations serves every cell under it.

A cell's spike is deepest on one electrode, its reference. On a lattice every interior
electrode has the same neighbourhood, so what a cell shows around its reference — its
spike on the nearby electrodes, its thresholds on the nearest — depends on its parameters
and on where its soma lies *relative to the reference*, not on which electrode that is.
The bank draws cells from the model's prior with the soma within DRAW_PITCHES of one
reference and keeps those whose spike is deepest there (so its prior is the prior given
the reference, as the data choose it); it simulates each once: the noise-free spike on the
patch (the electrodes within PATCH_PITCHES of the reference) and the thresholds on the ring
(within RING_PITCHES: the reference and its nearest neighbours). That is where a per-cell
fit spends its minute (about 52 s of bisection per 1,000 draws on three electrodes).

Each sorted unit is then fitted from the bank (`unit_posterior`): NPE is trained on the
bank's features that the unit has — its patch electrodes that exist on the array (a cell
near the edge has fewer), its fitting electrodes among the ring (fit.observe with
`fitting_within_um`), the bank's spikes with the unit's own image noise — which takes
seconds, sampled at the unit's observation, and the samples moved to its reference.
Refinement, calibration and prediction on the whole array follow as in fit.fit_cell.

The bank's physics is the model's: a cell and the same cell moved by a lattice vector
over the same electrodes have the same spike and thresholds (tested), so the amortisation
approximates nothing but the reference rule (deepest raw spike in the bank, deepest mean
spike after detection's filtering in the data) and the edge (a slot missing on the array
is left out, not simulated without it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import cKDTree

from ...backends.mea.base import CellModel, Parameter
from .fit import Observed
from .inference import Posterior, trained
from .summary import align, features

PATCH_PITCHES = 3.2
"""The image patch: electrodes within this many pitches of the reference (37 on a
hexagonal lattice)."""
RING_PITCHES = 1.2
"""The threshold ring: electrodes within this many pitches of the reference (7 on a
hexagonal lattice). A unit's fitting electrodes are taken among them."""
DRAW_PITCHES = 2.0
"""The bank's somata are drawn within this many pitches of the reference (each
coordinate), before keeping those whose spike is deepest there."""
SLOT_TOLERANCE = 0.1
"""An array electrode fills a slot of the neighbourhood when it lies within this fraction
of a pitch of where the slot falls."""
MAX_DRAWN = 100
"""A bank gives up, in one line, once it has drawn this many times the cells it is to keep
(on the paper's array it keeps 1 in 19 draws)."""
CHUNK = 256
"""Draws simulated at a time while the bank is built."""


def pitch_um(positions_um: np.ndarray) -> float:
    """The array's pitch: the median distance from an electrode to its nearest neighbour
    (µm)."""
    xy = np.asarray(positions_um, float)[:, :2]
    distance, _ = cKDTree(xy).query(xy, k=2)
    return float(np.median(distance[:, 1]))


@dataclass(frozen=True)
class Neighbourhood:
    """The electrodes around a reference, as offsets from it (µm; the reference first,
    then by distance), the slots of the threshold ring among them, and the array's pitch
    (µm)."""

    offsets_um: np.ndarray
    ring: np.ndarray
    pitch_um: float

    @classmethod
    def of(cls, positions_um: np.ndarray) -> Neighbourhood:
        """The neighbourhood of the array's electrode nearest its centre (interior on any
        array larger than the patch). ValueError when no electrode has a whole ring."""
        xy = np.asarray(positions_um, float)[:, :2]
        pitch = pitch_um(xy)
        centre = int(np.argmin(np.linalg.norm(xy - xy.mean(axis=0), axis=1)))
        offsets = xy - xy[centre]
        distance = np.linalg.norm(offsets, axis=1)
        inside = np.flatnonzero(distance <= PATCH_PITCHES * pitch)
        inside = inside[np.argsort(distance[inside], kind="stable")]
        offsets = offsets[inside]
        ring = np.flatnonzero(distance[inside] <= RING_PITCHES * pitch)
        if len(ring) < 2:
            raise ValueError("the array has no electrode with neighbours for a threshold ring")
        return cls(offsets, ring, pitch)

    def slots(self, positions_um: np.ndarray, reference: int) -> np.ndarray:
        """(slots,) the channel of `positions_um` filling each slot around channel
        `reference`, or −1 where the array has none (beyond its edge)."""
        xy = np.asarray(positions_um, float)[:, :2]
        distance, nearest = cKDTree(xy).query(xy[reference] + self.offsets_um)
        return np.where(distance <= SLOT_TOLERANCE * self.pitch_um, nearest, -1)


@dataclass(frozen=True)
class Bank:
    """Prior draws around one reference and what they show there: parameters (draws,
    parameters) with the soma's x_um, y_um relative to the reference (µm), under the
    prior box `parameters`; the noise-free spike on the patch (draws, slots, samples) µV,
    aligned so the reference's trough is at sample `at`; thresholds (draws, ring slots) µA
    of `shape` pulses; and how many draws were simulated to keep these."""

    neighbourhood: Neighbourhood
    parameters: tuple[Parameter, ...]
    theta: np.ndarray
    templates_uv: np.ndarray
    at: int
    thresholds_ua: np.ndarray
    shape: str
    sampling_hz: float
    drawn: int


def build_bank(
    model_of: Callable[[np.ndarray], CellModel],
    positions_um: np.ndarray,
    draws: int,
    at: int,
    shape: str = "triphasic",
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
) -> Bank:
    """A bank of `draws` cells for the array at `positions_um` (µm): `model_of` makes the
    CellModel over given electrode positions (a simulator backend's cell_model); spikes
    aligned with the reference's trough at sample `at` (fit.BEFORE_MS into the template);
    `progress(stage, done, draws)` as cells are kept ('cells kept': drawn cells whose
    spike is deepest at the reference, about one in twenty) and as their thresholds are
    bisected ('thresholds': most of the cost)."""
    hood = Neighbourhood.of(positions_um)
    model = model_of(hood.offsets_um)
    reach = DRAW_PITCHES * hood.pitch_um
    around = {"x_um": (-reach, reach), "y_um": (-reach, reach)}
    box = tuple(
        replace(p, low=around[p.name][0], high=around[p.name][1]) if p.name in around else p
        for p in model.parameters
    )
    low = np.array([p.low for p in box])
    high = np.array([p.high for p in box])
    rng = np.random.default_rng(seed)
    thetas, templates, drawn = [], [], 0
    kept = 0
    while kept < draws:
        if drawn >= MAX_DRAWN * draws:
            raise ValueError(
                f"{kept} of {drawn:,} cells drawn within {DRAW_PITCHES:g} pitches of an "
                "electrode had their spike deepest there: the array is no lattice a bank "
                "can serve"
            )
        theta = rng.uniform(low, high, (CHUNK, len(low)))
        spikes = model.templates(theta)
        drawn += CHUNK
        deepest = spikes.min(axis=2).argmin(axis=1) == 0
        thetas.append(theta[deepest])
        templates.append(spikes[deepest])
        kept += int(deepest.sum())
        if progress:
            progress("cells kept", min(kept, draws), draws)
    theta = np.concatenate(thetas)[:draws]
    spikes = align(np.concatenate(templates)[:draws], 0, at)
    thresholds = []
    if progress:
        progress("thresholds", 0, draws)
    for start in range(0, draws, CHUNK):
        chunk = theta[start : start + CHUNK]
        thresholds.append(model.thresholds(chunk, hood.ring, shape))
        if progress:
            progress("thresholds", min(draws, start + CHUNK), draws)
    return Bank(
        hood,
        box,
        theta,
        spikes,
        at,
        np.concatenate(thresholds),
        shape,
        model.sampling_hz,
        drawn,
    )


def unit_posterior(
    bank: Bank,
    model: CellModel,
    positions_um: np.ndarray,
    seen: Observed,
    seed: int = 0,
    samples: int = 1000,
) -> Posterior:
    """The posterior of the unit `seen` (observed with fitting electrodes among the ring:
    fit.observe's `fitting_within_um`) from `bank`, in `model`'s frame (the whole array at
    `positions_um`): NPE on the bank's features the unit has, with its image noise, sampled
    at its features, the samples' soma moved to its reference. ValueError when a fitting
    electrode is not in the ring, or the pulse shape is not the bank's."""
    o = seen.observation
    if o.shape != bank.shape:
        raise ValueError(f"the unit's fitting pulses are {o.shape}, the bank's {bank.shape}")
    if o.at != bank.at:
        raise ValueError(f"the unit's image is aligned at sample {o.at}, the bank's at {bank.at}")
    slots = bank.neighbourhood.slots(positions_um, seen.channel)
    present = slots >= 0
    ring = list(slots[bank.neighbourhood.ring])
    missing = [e for e in o.electrodes if e not in ring]
    if missing:
        raise ValueError(f"fitting electrode {missing[0]} is not in the reference's ring")
    columns = [ring.index(e) for e in o.electrodes]
    rng = np.random.default_rng(seed)
    noise = o.image_noise_uv[slots[present]]
    spikes = bank.templates_uv[:, present]
    spikes = spikes + rng.standard_normal(spikes.shape) * noise[None, :, None]
    x = features(spikes, bank.thresholds_ua[:, columns], bank.sampling_hz, bank.at)
    observed = np.array([seen.thresholds_ua[e] for e in o.electrodes])
    x_o = features(seen.image[slots[present]], observed, bank.sampling_hz, bank.at)
    low = np.array([p.low for p in bank.parameters])
    high = np.array([p.high for p in bank.parameters])
    posterior = trained(bank.theta, x, low, high, x_o, seed, samples)
    moved = posterior.samples.copy()
    names = [p.name for p in model.parameters]
    reference = np.asarray(positions_um, float)[seen.channel]
    for axis, name in enumerate(("x_um", "y_um")):
        moved[:, names.index(name)] += reference[axis]
    for k, p in enumerate(model.parameters):
        moved[:, k] = p.inside(moved[:, k])
    return Posterior(moved, posterior.log_density)
