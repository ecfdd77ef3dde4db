"""Stimulation artefacts removed before evoked-spike detection, estimated jointly with the
spikes they hide.

After a pulse every electrode carries an artefact far larger than a spike (hundreds of µV
on and near the stimulating electrode). Its waveform is not assumed: per pulse shape and
stimulating electrode e, one waveform A_e (samples × detection channels, µV per µA) is
estimated, and a pulse with currents I_e leaves Σ_e T_e(I_e), where T_e(I) = I·A_e +
Σ_k h_k(I)·D_ek departs from linear scaling by a template D_ek at each of up to
KNOTS_PER_SIDE current levels k of each polarity (h_k: the hat function that is 1 at
level k and falls linearly to 0 at its neighbours and at zero current), so the artefact
is smooth in current, linear between levels, and free to saturate or change shape as
real electrodes' artefacts do (Mena et al. 2017, PLoS Comput Biol 13:e1005842, model
them as smooth in current for that reason). Each departure is tied, with
DEPARTURE_TRIALS trials' worth of evidence, to the one at the next level nearer zero
current (the smallest to zero): a random walk over current, so a level seen on a few
silent trials keeps its own template and one whose trials all spike takes its
neighbour's. Departures are learnt from trials called silent only (the spike left once
the matched template is taken away would otherwise leak into them). So every pattern
and amplitude gets its own template, but all of them share the electrodes' waveforms: a
pattern whose every trial spikes (where a mean over its trials would take the spike for
artefact) is known from its electrodes' silent trials at other currents. Patterns of
several electrodes add their electrodes' artefacts (the stimulator's charge superposes
through the medium); `linear` drops the departures (the model before: Σ_e I_e·A_e).

The fit climbs the current levels, as Mena et al. do: at each, its new trials are called
against the artefact the lower levels predict (an electrode's first trials, which
nothing predicts, join uncalled), then every trial so far alternates until the spike
calls stop changing between (1) least squares for the waveforms over every window
sample, trials called spikes weighted down (their spike, placed where it matched,
subtracted first), and (2) each window less its artefact scored by the matched filter
and called a spike above the threshold set on quiet recording. Samples that no window
lost to the rail share one normal matrix, solved once for all of them.

Saturation: samples where the unfiltered trace sits on the channel's rail (its extreme
value, met at least three times and held for consecutive samples) and `mask_ms` either
side (what the band-pass spreads) carry nothing: they are left out of the fit, and a
channel saturated over more than half of a window leaves that window's score."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import sparse
from scipy.ndimage import binary_dilation
from scipy.sparse.linalg import splu

from ...datasets.mea.recording import Stimulation
from .matched_filter import MatchedFilter

ArtefactHandling = Literal["remove", "linear", "keep"]
"""What happens to stimulation artefacts before evoked spikes are called: 'remove' (the
smooth-in-current model above), 'linear' (scaled linearly with current, no departures) or
'keep' (traces as they are: artefacts removed upstream, or none)."""

RAIL_REPEATS = 3
"""A channel's extreme value counts as its saturation rail when met this often."""
KNOTS_PER_SIDE = 4
"""Current levels of each polarity where an electrode's artefact may depart from linear
scaling (its distinct levels when it has at most this many, else this many spread over
them, the largest included)."""
DEPARTURE_TRIALS = 1.0
"""How strongly each departure template is tied to its neighbour's, in trials of evidence
(a level of n silent trials moves n / (n + DEPARTURE_TRIALS) of the way to its own)."""


@dataclass(frozen=True)
class Artefacts:
    """What removal found. columns: (pulse shape, electrode id) per waveform;
    waveforms_uv_per_ua: (columns, samples, channels) µV per µA on the detection
    `channels` (indices) over the detection window, the linear part; levels_ua: each
    column's current levels with a departure (µA), departures_uv: (levels, samples,
    channels) µV per column, the artefact at that level less the linear part (empty with
    `linear`); saturated_fraction: of window samples lost to the amplifier's rail;
    peak_uv: the largest artefact removed; iterations taken."""

    columns: tuple[tuple[str, int], ...]
    channels: np.ndarray
    waveforms_uv_per_ua: np.ndarray
    saturated_fraction: float
    peak_uv: float
    iterations: int
    levels_ua: tuple[np.ndarray, ...] = ()
    departures_uv: tuple[np.ndarray, ...] = ()

    def template(self, column: int, current_ua: float) -> np.ndarray:
        """(samples, channels) µV: the artefact column `column`'s electrode leaves at
        `current_ua` (the line plus the departures interpolated between levels)."""
        artefact = current_ua * self.waveforms_uv_per_ua[column]
        if self.levels_ua:
            hats = hat_functions(self.levels_ua[column], np.array([current_ua]))[0]
            artefact = artefact + np.einsum("k,ksc->sc", hats, self.departures_uv[column])
        return artefact


def electrode_currents(stimulation: Stimulation) -> tuple[tuple[tuple[str, int], ...], np.ndarray]:
    """((shape, electrode) per column, (events, columns) µA): each pulse's current on each
    stimulating electrode, one column per pulse shape and electrode.

    >>> from substrates.datasets.mea.recording import Stimulation
    >>> s = Stimulation(np.array([0.0, 0.01]), ((3,), (3, 4)), np.array([2.0, 1.0]),
    ...                 ("biphasic", "biphasic"), ((1.0,), (1.0, -1.0)))
    >>> columns, currents = electrode_currents(s)
    >>> columns, currents.tolist()
    ((('biphasic', 3), ('biphasic', 4)), [[2.0, 0.0], [1.0, -1.0]])
    """
    columns = tuple(
        sorted(
            {
                (stimulation.shape[k], int(e))
                for k in range(len(stimulation))
                for e in stimulation.electrodes[k]
            }
        )
    )
    index = {c: j for j, c in enumerate(columns)}
    currents = np.zeros((len(stimulation), len(columns)))
    for k in range(len(stimulation)):
        for e, i in zip(stimulation.electrodes[k], stimulation.currents(k), strict=True):
            currents[k, index[(stimulation.shape[k], int(e))]] += i
    return columns, currents


def current_levels(currents_ua: np.ndarray, per_side: int = KNOTS_PER_SIDE) -> np.ndarray:
    """The levels (µA, sorted, zero left out) where one electrode's artefact may depart
    from linear: its distinct non-zero currents of each polarity, or `per_side` of them
    spread evenly by rank, the largest in magnitude always kept.

    >>> current_levels(np.array([0.0, 1.0, 2.0, 2.0, -3.0]))
    array([-3.,  1.,  2.])
    >>> current_levels(np.arange(1.0, 11.0), per_side=3)
    array([ 1.,  5., 10.])
    """
    levels = []
    for side in (-1.0, 1.0):
        found = np.unique(np.abs(currents_ua[np.sign(currents_ua) == side]))
        if len(found) > per_side:
            found = found[np.round(np.linspace(0, len(found) - 1, per_side)).astype(int)]
        levels.append(side * found)
    return np.sort(np.concatenate(levels))


def hat_functions(levels_ua: np.ndarray, currents_ua: np.ndarray) -> np.ndarray:
    """(currents, levels): each level's hat at each current — 1 at the level, linear to
    0 at the neighbouring levels (zero current a neighbour of the smallest of each
    polarity), 0 beyond; past the outermost level of a polarity its hat stays 1.

    >>> hat_functions(np.array([1.0, 3.0]), np.array([0.0, 0.5, 2.0, 3.0, 4.0])).tolist()
    [[0.0, 0.0], [0.5, 0.0], [0.5, 0.5], [0.0, 1.0], [0.0, 1.0]]
    """
    grid = np.sort(np.concatenate([levels_ua, [0.0]]))
    values = np.zeros((len(currents_ua), len(levels_ua)))
    for k, level in enumerate(levels_ua):
        at = int(np.searchsorted(grid, level))
        unit = np.zeros(len(grid))
        unit[at] = 1.0
        values[:, k] = np.interp(currents_ua, grid, unit)  # flat past the ends: stays 1
    return values


def _features(
    currents: np.ndarray, linear: bool
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...], list[slice]]:
    """(design (events, features), penalty (features, features), levels per column, each
    column's departure features): per column its current, then (unless `linear`) the
    hats of its levels. The penalty ties each departure to the one at the next level
    nearer zero current (zero at zero current), DEPARTURE_TRIALS trials of evidence each:
    a random walk over current, so a level without silent trials takes its neighbour's."""
    design, levels, spans = [currents], [], []
    start = currents.shape[1]
    for j in range(currents.shape[1]):
        found = np.zeros(0) if linear else current_levels(currents[:, j])
        design.append(hat_functions(found, currents[:, j]))
        levels.append(found)
        spans.append(slice(start, start + len(found)))
        start += len(found)
    penalty = np.diag(np.full(start, 1e-9))
    for found, span in zip(levels, spans, strict=True):
        for k, level in enumerate(found):
            same = [i for i, other in enumerate(found) if np.sign(other) == np.sign(level)]
            nearer = [i for i in same if abs(found[i]) < abs(level)]
            a = span.start + k
            penalty[a, a] += DEPARTURE_TRIALS
            if nearer:  # (D_a − D_b)²; the smallest level's (D_a − 0)²
                b = span.start + max(nearer, key=lambda i: abs(found[i]))
                penalty[b, b] += DEPARTURE_TRIALS
                penalty[a, b] -= DEPARTURE_TRIALS
                penalty[b, a] -= DEPARTURE_TRIALS
    return np.concatenate(design, axis=1), penalty, tuple(levels), spans


def _solve(
    design: sparse.csr_matrix,
    trials: np.ndarray,
    keep: np.ndarray,
    target: np.ndarray,
    penalty: sparse.csc_matrix,
) -> np.ndarray:
    """(samples, channels, features): per window sample and channel, the penalised least
    squares fit of `target` (windows, samples, channels) on `design` (windows, features;
    sparse: a pulse touches the features of its one or two electrodes) with weights
    trials (windows,) × keep (windows, samples, channels). Samples no window lost to the
    rail share one normal matrix; the others are solved one by one."""
    windows, samples, channels = target.shape
    weighted = sparse.diags(trials) @ design
    normal = splu((weighted.T @ design + penalty).tocsc())
    moment = weighted.T @ (target * keep).reshape(windows, -1)
    out = normal.solve(np.asarray(moment)).T.reshape(samples, channels, -1)
    for s, c in np.argwhere(~keep.all(axis=0)):
        w = sparse.diags(keep[:, s, c]) @ weighted
        own = splu((w.T @ design + penalty).tocsc())
        out[s, c] = own.solve(np.asarray(w.T @ target[:, s, c]).ravel())
    return out


def _times(design: sparse.csr_matrix, waveforms: np.ndarray) -> np.ndarray:
    """(windows, samples, channels): each window's artefact, its `design` row (features)
    times the `waveforms` (samples, channels, features)."""
    samples, channels, features = waveforms.shape
    flat = design @ waveforms.reshape(samples * channels, features).T
    return np.asarray(flat).reshape(design.shape[0], samples, channels)


def saturated(raw: np.ndarray, margin: int) -> np.ndarray:
    """(windows, samples, channels) bool of `raw` (windows, samples + 2·margin, channels),
    unfiltered µV: on a channel's rail, or within `margin` samples of it. A rail is the
    channel's largest or smallest value where it is met at least RAIL_REPEATS times, some
    of them in consecutive samples (clipping holds it; noise does not).

    >>> raw = np.arange(16.0).reshape(2, 8, 1) - 20; raw[0, 3:5] = 900; raw[1, 2] = 900
    >>> saturated(raw, 1)[..., 0].astype(int).tolist()
    [[0, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0]]
    """
    flat = raw.reshape(-1, raw.shape[2])
    rail = np.zeros(raw.shape, bool)
    for extreme in (flat.max(axis=0), flat.min(axis=0)):
        on = raw == extreme
        held = (on[:, 1:] & on[:, :-1]).any(axis=(0, 1))
        rail |= on & ((on.sum(axis=(0, 1)) >= RAIL_REPEATS) & held)
    if rail.any() and margin:
        rail = binary_dilation(rail, np.ones((1, 2 * margin + 1, 1), bool))
    return rail[:, margin : raw.shape[1] - margin]


def remove_artefacts(
    windows: np.ndarray,
    raw: np.ndarray,
    stimulation: Stimulation,
    matched: MatchedFilter,
    threshold: float,
    margin: int,
    spiking_weight: float = 0.05,
    max_iterations: int = 12,
    linear: bool = False,
) -> tuple[np.ndarray, Artefacts]:
    """(spiked (windows,) bool, what was removed) for detection `windows` (windows,
    samples, channels) µV after each pulse of `stimulation`, their unfiltered `raw`
    windows with `margin` samples either side; see the module's docstring (`linear`:
    without departures from linear scaling)."""
    columns, currents = electrode_currents(stimulation)
    dense, dense_penalty, levels, spans = _features(currents, linear)
    design, penalty = sparse.csr_matrix(dense), sparse.csc_matrix(dense_penalty)
    departures = np.arange(design.shape[1]) >= len(columns)
    entries = design.tocoo()
    lost = saturated(raw, margin)
    keep = (~lost).astype(float)
    valid = lost.mean(axis=1) <= 0.5
    spiked = np.zeros(len(windows), bool)
    spikes = np.zeros_like(windows)
    strength = np.abs(currents).max(axis=1)
    # up the current levels: each level's trials are called against the artefact the
    # lower levels predict, then join the fit (Mena et al. 2017's order); an electrode's
    # first trials, which nothing predicts, join uncalled
    steps = [np.inf] if linear else list(np.unique(strength))
    waveforms = np.zeros((windows.shape[1], windows.shape[2], design.shape[1]))
    included = np.zeros(len(windows), bool)
    iteration = 0
    for ceiling in steps:
        new = (strength <= ceiling) & ~included
        if not new.any():
            continue
        seen = (currents[included] != 0).any(axis=0)
        known = new & ~((currents != 0) & ~seen).any(axis=1)
        if known.any():  # called against the lower levels' artefact before they join
            predicted = _times(design[known], waveforms)
            scores, lags = matched.scores((windows[known] - predicted) * keep[known], valid[known])
            spiked[known] = scores > threshold
            spikes[known] = 0.0
            spikes[known & spiked] = matched.spikes(lags[spiked[known]], windows.shape[1])
        included |= new
        for step in range(1, max_iterations + 1):
            iteration += 1
            drop = spiked[entries.row] & departures[entries.col]  # departures: silent only
            learn = sparse.csr_matrix(
                (entries.data[~drop], (entries.row[~drop], entries.col[~drop])), design.shape
            )
            trials = np.where(spiked, spiking_weight, 1.0) * included
            waveforms = _solve(learn, trials, keep, windows - spikes, penalty)
            artefact = _times(design, waveforms)
            scores, lags = matched.scores((windows - artefact) * keep, valid)
            called = (scores > threshold) & included
            if step > 1 and np.array_equal(called, spiked):
                break
            spiked = called
            spikes = np.zeros_like(windows)  # the image placed in the windows called spikes
            spikes[called] = matched.spikes(lags[called], windows.shape[1])
    called = spiked
    fitted = np.moveaxis(waveforms, 2, 0)  # (features, samples, channels)
    found = Artefacts(
        columns,
        matched.channels,
        fitted[: len(columns)],
        float(lost.mean()),
        float(np.abs(artefact).max(initial=0.0)),
        iteration,
        () if linear else levels,
        () if linear else tuple(fitted[span] for span in spans),
    )
    return called, found
