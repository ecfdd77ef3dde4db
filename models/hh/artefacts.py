"""Stimulation artefacts removed before evoked-spike detection, estimated jointly with the
spikes they hide.

After a pulse every electrode carries an artefact far larger than a spike (hundreds of µV
on and near the stimulating electrode). Its waveform is not assumed: per pulse shape and
stimulating electrode e, one waveform A_e (samples × detection channels, µV per µA) is
estimated, and a pulse with currents I_e leaves Σ_e I_e·A_e — linear in the current and
superposing over electrodes, as the stimulator's charge does through an ohmic medium. So
every pattern and amplitude gets its own template (the literature's per-pattern,
per-amplitude estimation, e.g. Mena et al. 2017, PLoS Comput Biol 13:e1005842), but all
of them share the electrodes' waveforms: a pattern whose every trial spikes (where a mean
over its trials would take the spike for artefact) is known from the low-current trials
of its electrodes, where the cell stays silent.

Alternating until the spike calls stop changing: (1) least squares for the waveforms,
over every window sample, with trials called spikes weighted down (their spike, placed
where it matched, subtracted first); (2) each window less its artefact scored by the
matched filter and called a spike above the threshold set on quiet recording.

Saturation: samples where the unfiltered trace sits on the channel's rail (its extreme
value, met at least three times and held for consecutive samples) and `mask_ms` either
side (what the band-pass spreads) carry nothing: they are left out of the fit, and a
channel saturated over more than half of a window leaves that window's score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import binary_dilation

from ...datasets.mea.recording import Stimulation
from .matched_filter import MatchedFilter

RAIL_REPEATS = 3
"""A channel's extreme value counts as its saturation rail when met this often."""


@dataclass(frozen=True)
class Artefacts:
    """What removal found. columns: (pulse shape, electrode id) per waveform;
    waveforms_uv_per_ua: (columns, samples, channels) µV per µA on the detection
    `channels` (indices) over the detection window; saturated_fraction: of window samples lost to
    the amplifier's rail; peak_uv: the largest artefact removed; iterations taken."""

    columns: tuple[tuple[str, int], ...]
    channels: np.ndarray
    waveforms_uv_per_ua: np.ndarray
    saturated_fraction: float
    peak_uv: float
    iterations: int


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
) -> tuple[np.ndarray, Artefacts]:
    """(spiked (windows,) bool, what was removed) for detection `windows` (windows,
    samples, channels) µV after each pulse of `stimulation`, their unfiltered `raw`
    windows with `margin` samples either side; see the module's docstring."""
    columns, currents = electrode_currents(stimulation)
    lost = saturated(raw, margin)
    keep = (~lost).astype(float)
    valid = lost.mean(axis=1) <= 0.5
    spiked = np.zeros(len(windows), bool)
    spikes = np.zeros_like(windows)
    ridge = 1e-9 * np.eye(len(columns))
    for iteration in range(1, max_iterations + 1):
        weight = np.where(spiked, spiking_weight, 1.0)[:, None, None] * keep
        normal = np.einsum("kj,ksc,ki->scji", currents, weight, currents, optimize=True)
        moment = np.einsum("kj,ksc->scj", currents, weight * (windows - spikes), optimize=True)
        waveforms = np.linalg.solve(normal + ridge, moment[..., None])[..., 0]
        artefact = np.einsum("kj,scj->ksc", currents, waveforms, optimize=True)
        scores, lags = matched.scores((windows - artefact) * keep, valid)
        called = scores > threshold
        if iteration > 1 and np.array_equal(called, spiked):
            break
        spiked = called
        spikes = matched.spikes(lags, windows.shape[1]) * called[:, None, None]
    found = Artefacts(
        columns,
        matched.channels,
        np.moveaxis(waveforms, 2, 0),
        float(lost.mean()),
        float(np.abs(artefact).max(initial=0.0)),
        iteration,
    )
    return called, found
