"""`mea.jaxley`: a simulated array under one retinal-ganglion-cell-like jaxley cell, or
several (cell.py, simulation.py). Its recording is a session: spontaneous spikes at Poisson times,
then a stimulation protocol (single electrodes at a range of currents, and pairs driven
together or in opposition) in shuffled trials, with white electrode noise and, on request,
what an amplifier adds (DC offsets, drift, mains interference, the stimulation artefact
and saturation: amplifier.py), stored as int16.
The cell's parameters are hidden (drawn from the prior with `seed`, or given); ground_truth()
tells them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property, lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from ...errors import SubstratesError
from ..base import BackendOptions, Tier
from .base import CellModel, GroundTruth, MEACapabilities, MEASimulatorBackend
from .locality import Locality, LocalResponses, local_responses

if TYPE_CHECKING:
    from ...datasets.mea.recording import Recording, Stimulation

GAIN_UV = 0.25
"""µV per stored int16 unit of simulated traces (±8.2 mV full scale)."""
BLOCK = 1024
"""Stimulation events are simulated this many at a time for one cell (their potentials on
512 electrodes take 330 MB), and added to the traces before the next."""
NOISE_BLOCK = 1 << 24
"""Electrode noise is drawn, and traces stored as int16, this many values at a time
(float64: 128 MiB), not for a whole session at once (a 100-cell 512-electrode session
holds about 10⁹)."""


SCALABLE = ("gna_s_cm2", "gk_s_cm2", "ra_ohm_cm", "axon_radius_um")
"""The cell's biophysical parameters, which scale_parameters may move off the prior."""


class JaxleyOptions(BackendOptions):
    """The cell's morphology (an SWC file, cut into compartments of about compartment_um;
    None: the built-in retinal ganglion cell, its axon in compartments of compartment_um:
    a finer one than the fitting model's 20 µm simulates what a coarser model misses); the
    array (layout: hexagonal or grid of rows × columns at pitch_um, or `probe`, a
    probeinterface file), sampling_hz; the hidden
    cell (`cell`:
    a value for each parameter, or None: drawn from the prior with `seed`); array_cells:
    how many cells lie under the array: the hidden one and array_cells − 1 others
    (`others`), each drawn from the prior (so at its own place, orientation and depth)
    from a stream of its own, firing its own Poisson train, and targeted by the protocol
    in turn; the session
    (spontaneous_s at spontaneous_hz, then `trials` of each pattern every trial_ms: the
    stim_electrodes electrodes with the largest spikes alone at each of currents_ua, and
    every pair of the first pair_electrodes at pair_currents_ua together and opposed;
    firing_throughout: the cells go on firing at spontaneous_hz between pulses, as real
    cells do, their spikes kept clear of each pulse's response window, FIRING_CLEAR_MS);
    noise_uv (RMS at the electrodes), membrane_noise_ua_cm2 (white membrane current);
    the amplifier's baseline (offset_uv: DC offsets drawn in ±offset_uv per channel;
    drift_uv at drift_hz; line_uv of mains at line_hz; all 0 by default, drawn from their
    own stream of `seed` so a session with them differs from the clean one by them alone);
    the stimulation artefact (artefact_uv_per_ua µV per µA on the stimulating electrode,
    falling with distance as 1/(1 + d/artefact_length_um), held for the pulse, then
    decaying with artefact_ms; 0: none; artefact_saturation_ua: each electrode's artefact
    saturating in its current, I_sat·tanh(I/I_sat), and decaying more slowly after larger
    pulses, artefact_ms·(1 + |I|/I_sat), as real electrodes' do; None: linear) and the
    amplifier's range (saturation_uv: traces clip at ±saturation_uv; None: the int16
    range);
    the simulation (dt_ms, celsius, disk_radius_um of the electrodes, float64, batch;
    local_events: each cell simulated only for the events that can reach it, in order of
    the current they inject into it, until a whole batch evokes nothing (locality.py; the
    rest are silent for it, and `locality` says what was saved and the most a left-out
    event could add): on a large array most events are far from any one cell);
    scale_parameters: each drawn cell's value of a biophysical parameter (SCALABLE)
    multiplied by a factor, e.g. {gna_s_cm2: 1.6}, which puts cells outside the prior a
    fit assumes (a model-mismatch study's cells; `cell`, given, is never scaled)."""

    morphology: str | None = None
    compartment_um: float = Field(20.0, gt=0)
    layout: Literal["hexagonal", "grid", "probe"] = "hexagonal"
    probe: str | None = None
    rows: int = Field(8, ge=1)
    columns: int = Field(8, ge=1)
    pitch_um: float = Field(30.0, gt=0)
    sampling_hz: float = Field(20000.0, gt=0)
    cell: dict[str, float] | None = None
    seed: int = 0
    spontaneous_s: float = Field(5.0, ge=0)
    spontaneous_hz: float = Field(10.0, ge=0)
    firing_throughout: bool = False
    array_cells: int = Field(1, ge=1)
    stim_electrodes: int = Field(6, ge=0)
    currents_ua: list[float] = Field(
        default_factory=lambda: [round(1.5 * 1.25**k, 2) for k in range(12)]
    )
    pair_electrodes: int = Field(4, ge=0)
    pair_currents_ua: list[float] = Field(default_factory=lambda: [3.0, 6.0, 10.0])
    trials: int = Field(8, ge=1)
    trial_ms: float = Field(10.0, gt=0)
    noise_uv: float = Field(5.0, ge=0)
    membrane_noise_ua_cm2: float = Field(25.0, ge=0)
    offset_uv: float = Field(0.0, ge=0)
    drift_uv: float = Field(0.0, ge=0)
    drift_hz: float = Field(1.0, gt=0)
    line_uv: float = Field(0.0, ge=0)
    line_hz: float = Field(50.0, gt=0)
    artefact_uv_per_ua: float = Field(0.0, ge=0)
    artefact_length_um: float = Field(60.0, gt=0)
    artefact_ms: float = Field(1.0, gt=0)
    artefact_saturation_ua: float | None = Field(None, gt=0)
    saturation_uv: float | None = Field(None, gt=0)
    dt_ms: float = Field(0.01, gt=0)
    celsius: float = 28.0
    disk_radius_um: float = Field(5.0, ge=0)
    float64: bool = True
    batch: int = Field(64, ge=1)
    local_events: bool = False
    scale_parameters: dict[str, float] = Field(default_factory=dict)

    @field_validator("scale_parameters")
    @classmethod
    def _scalable(cls, factors: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(factors) - set(SCALABLE))
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: only {', '.join(SCALABLE)} can be scaled")
        if any(not 0 < f <= 10 for f in factors.values()):
            raise ValueError("factors must lie in (0, 10]")
        return factors

    @field_validator("currents_ua", "pair_currents_ua")
    @classmethod
    def _in_range(cls, values: list[float]) -> list[float]:
        from .simulation import MAX_CURRENT_UA

        if any(not 0 < v <= MAX_CURRENT_UA for v in values):
            raise ValueError(f"currents must lie in (0, {MAX_CURRENT_UA}] µA, the model's range")
        return values

    @model_validator(mode="after")
    def _below_nyquist(self) -> JaxleyOptions:
        for name in ("drift_hz", "line_hz"):
            if getattr(self, name) >= self.sampling_hz / 2:
                raise ValueError(f"{name} must lie below half of sampling_hz")
        return self


class JaxleyBackend(MEASimulatorBackend):
    """One jaxley cell over a simulated array; stimulates and gives a CellModel."""

    name: ClassVar[str] = "mea.jaxley"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[BackendOptions]] = JaxleyOptions
    requires: ClassVar[tuple[str, ...]] = ("jaxley", "jax")
    platform: ClassVar[str] = "cpu"

    options: JaxleyOptions
    locality: Locality | None = None
    """With local_events, once the session is simulated: what locality saved."""

    @cached_property
    def positions_um(self) -> np.ndarray:
        from ...datasets.mea.geometry import from_probe_file, grid, hexagonal

        o = self.options
        if o.layout == "probe":
            if o.probe is None:
                raise SubstratesError("options.probe: layout 'probe' needs a probeinterface file")
            try:
                return from_probe_file(o.probe)
            except (OSError, ValueError) as error:
                raise SubstratesError(f"options.probe: {error}") from None
        return (hexagonal if o.layout == "hexagonal" else grid)(o.rows, o.columns, o.pitch_um)

    def _cell_model(self, positions_um: np.ndarray) -> CellModel:
        o = self.options
        positions = tuple(map(tuple, np.asarray(positions_um, float)[:, :2].tolist()))
        return _simulation(
            o.morphology,
            o.compartment_um,
            positions,
            o.dt_ms,
            o.sampling_hz,
            o.disk_radius_um,
            o.celsius,
            o.float64,
            self._platform(),
            o.batch,
        )

    def _platform(self) -> str:
        return self.platform

    @cached_property
    def _model(self) -> Any:
        return self._cell_model(self.positions_um)

    @cached_property
    def hidden(self) -> np.ndarray:
        """The hidden cell's parameters, ordered as the model's."""
        parameters = self._model.parameters
        if self.options.cell is None:
            rng = np.random.default_rng(self.options.seed)
            return self._scaled(np.array([rng.uniform(p.low, p.high) for p in parameters]))
        names = [p.name for p in parameters]
        if set(self.options.cell) != set(names):
            raise SubstratesError(f"options.cell: give exactly {', '.join(names)}")
        return np.array([self.options.cell[n] for n in names], float)

    @cached_property
    def others(self) -> np.ndarray:
        """(array_cells − 1, parameters): the other cells under the array, drawn from the
        prior, each from a stream of its own (the hidden cell's draw is unchanged)."""
        parameters = self._model.parameters
        streams = (
            np.random.default_rng((self.options.seed, 23, k))
            for k in range(1, self.options.array_cells)
        )
        cells = [[rng.uniform(p.low, p.high) for p in parameters] for rng in streams]
        return self._scaled(np.array(cells, float).reshape(-1, len(parameters)))

    def _scaled(self, cells: np.ndarray) -> np.ndarray:
        """`cells` (…, parameters) drawn from the prior, with scale_parameters applied."""
        names = [p.name for p in self._model.parameters]
        factors = np.array([self.options.scale_parameters.get(n, 1.0) for n in names])
        return cells * factors

    @cached_property
    def capabilities(self) -> MEACapabilities:
        """Known without simulating: the session's duration is left open (None)."""
        from .simulation import MAX_CURRENT_UA

        return MEACapabilities(
            len(self.positions_um), self.options.sampling_hz, None, True, True, MAX_CURRENT_UA
        )

    def _recording(self) -> Recording:
        return self._session[0]

    def _ground_truth(self) -> GroundTruth:
        return self._session[1]

    def _stimulate(self, stimulation: Stimulation) -> Recording:
        """The recording of `stimulation` played on the cell (plus noise), as long as its
        last pulse and one trial window."""
        from ...datasets.mea.recording import ArraySource, Recording

        fs = self.options.sampling_hz
        samples = int(np.ceil(stimulation.time_s.max(initial=0.0) * fs)) + self._window
        traces = np.zeros((samples, len(self.positions_um)), np.float32)
        self._play(stimulation, traces, self.options.seed + 1)
        stored = self._stored(traces, np.random.default_rng(self.options.seed + 2))
        ids = np.arange(len(self.positions_um))
        return Recording(
            ArraySource(stored), samples, fs, GAIN_UV, ids, self.positions_um, stimulation
        )

    @property
    def _window(self) -> int:
        return self._model.timing.samples

    def _currents(self, stimulation: Stimulation) -> np.ndarray:
        """(events, channels) µA (electrodes and currents were validated)."""
        currents = np.zeros((len(stimulation), len(self.positions_um)))
        for k in range(len(stimulation)):
            for electrode, current in zip(
                stimulation.electrodes[k], stimulation.currents(k), strict=True
            ):
                currents[k, electrode] += current
        return currents

    def _play(self, stimulation: Stimulation, traces: np.ndarray, seed: int) -> np.ndarray:
        """Adds every cell's response to each event to `traces` (µV) and returns whether
        each cell spiked (cells, events), the hidden cell first. Events are simulated a
        block at a time (each with the membrane noise it has among all), so a session's
        potentials are never held at once."""
        model = self._model
        currents = self._currents(stimulation)
        cells = np.concatenate([self.hidden[None], self.others])
        spiked = np.zeros((len(cells), len(stimulation)), bool)
        noise = self.options.membrane_noise_ua_cm2
        reports: list[LocalResponses] = []
        for cell, hidden in enumerate(cells):
            for index, shape in enumerate(sorted(set(stimulation.shape))):
                chosen = np.flatnonzero(np.array(stimulation.shape) == shape)
                stream = seed + 7919 * index + 104729 * cell
                add = self._adder(traces, stimulation.time_s[chosen])
                if self.options.local_events:
                    local = local_responses(
                        model, hidden, currents[chosen], shape, noise, stream, add
                    )
                    reports.append(local)
                    spiked[cell, chosen] = local.spiked
                    continue
                thetas = np.broadcast_to(hidden, (len(chosen), len(hidden)))
                size = model.batch * max(1, BLOCK // model.batch)  # whole batches, as at once
                for block in (
                    np.arange(k, min(k + size, len(chosen))) for k in range(0, len(chosen), size)
                ):
                    hit, potentials = model.responses(
                        thetas, currents[chosen], shape, noise, stream, block
                    )
                    spiked[cell, chosen[block]] = hit
                    add(block, potentials)
            if self.progress is not None:
                self.progress(cell + 1, len(cells))
        if self.options.artefact_uv_per_ua:
            self._artefacts(stimulation, currents, traces)
        if reports:
            self.locality = Locality(
                sum(len(r.simulated) for r in reports),
                len(cells) * len(stimulation),
                max(r.bound_uv for r in reports),
                sum(r.left_out == 0 for r in reports),
            )
        return spiked

    def _adder(
        self, traces: np.ndarray, times_s: np.ndarray
    ) -> Callable[[np.ndarray, np.ndarray], None]:
        """add(indices, potentials): adds the potentials (k, m, samples) µV of the events
        `indices` of `times_s` (pulse times, s) to `traces`, each window opening onset_ms
        before its pulse."""
        fs = self.options.sampling_hz
        onset = round(self._model.timing.onset_ms * 1e-3 * fs)

        def add(indices: np.ndarray, potentials: np.ndarray) -> None:
            for time_s, potential in zip(times_s[indices], potentials, strict=True):
                start = round(time_s * fs) - onset
                kept = potential[:, max(0, -start) :]
                start = max(0, start)
                traces[start : start + kept.shape[1]] += kept.T[: len(traces) - start]

        return add

    def _artefacts(
        self, stimulation: Stimulation, currents: np.ndarray, traces: np.ndarray
    ) -> None:
        """Adds each pulse's artefact (amplifier.artefact_uv) from its start, for 10 of its
        slowest decay times."""
        from .amplifier import artefact_uv
        from .simulation import PULSES

        o, fs = self.options, self.options.sampling_hz
        for k, shape in enumerate(stimulation.shape):
            pulse_ms = len(PULSES[shape]) * self._model.timing.phase_ms
            start = round(stimulation.time_s[k] * fs)
            slowest = o.artefact_ms * (
                1
                if o.artefact_saturation_ua is None
                else 1 + np.abs(currents[k]).max() / o.artefact_saturation_ua
            )
            wave = artefact_uv(
                currents[k],
                self.positions_um,
                round(10 * slowest * 1e-3 * fs),
                fs,
                uv_per_ua=o.artefact_uv_per_ua,
                length_um=o.artefact_length_um,
                decay_ms=o.artefact_ms,
                pulse_ms=pulse_ms,
                saturation_ua=o.artefact_saturation_ua,
            )
            traces[start : start + len(wave)] += wave[: len(traces) - start]

    def _stored(self, traces: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """int16 of `traces` (µV, changed in place) plus the electrode noise, the
        amplifier's baseline and its clipping, a block of NOISE_BLOCK values at a time (the
        same numbers as all at once)."""
        from .amplifier import baseline_uv

        o = self.options
        samples, channels = traces.shape
        stored = np.empty(traces.shape, np.int16)
        rows = max(1, NOISE_BLOCK // channels)
        drifts = bool(o.offset_uv or o.drift_uv or o.line_uv)
        for start in range(0, samples, rows):
            block = traces[start : start + rows]
            block += rng.normal(0.0, o.noise_uv, block.shape).astype(np.float32)
            if drifts:
                block += baseline_uv(
                    len(block),
                    channels,
                    o.sampling_hz,
                    offset_uv=o.offset_uv,
                    drift_uv=o.drift_uv,
                    drift_hz=o.drift_hz,
                    line_uv=o.line_uv,
                    line_hz=o.line_hz,
                    rng=np.random.default_rng((o.seed, 17)),  # its own stream, each block
                    first=start,
                )
            if o.saturation_uv is not None:
                np.clip(block, -o.saturation_uv, o.saturation_uv, out=block)
            stored[start : start + rows] = np.clip(np.round(block / GAIN_UV), -32768, 32767)
        return stored

    def protocol(self, templates: np.ndarray, start_s: float) -> Stimulation:
        """The session's stimulation: for each cell of `templates` (cells, channels,
        samples) in turn, patterns on the electrodes where its spikes are largest (an
        electrode or pair already targeted is not repeated), each `trials` times,
        shuffled, from `start_s`."""
        from ...datasets.mea.recording import Stimulation

        o = self.options
        patterns: list[tuple[tuple[int, ...], float, tuple[float, ...]]] = []
        targeted: set[tuple[int, ...]] = set()
        for template in templates:
            strongest = [int(e) for e in np.argsort(template.min(axis=1))[: o.stim_electrodes]]
            for e in (e for e in strongest if (e,) not in targeted):
                targeted.add((e,))
                patterns += [((e,), c, (1.0,)) for c in o.currents_ua]
            for pair in combinations(strongest[: o.pair_electrodes], 2):
                if pair in targeted or pair[::-1] in targeted:
                    continue
                targeted.add(pair)
                for current in o.pair_currents_ua:
                    patterns += [(pair, current, (1.0, 1.0)), (pair, current, (1.0, -1.0))]
        order = np.random.default_rng(o.seed + 3).permutation(len(patterns) * o.trials)
        chosen = [patterns[k % len(patterns)] for k in order]
        times = start_s + np.arange(len(chosen)) * o.trial_ms * 1e-3
        return Stimulation(
            times,
            tuple(p[0] for p in chosen),
            np.array([p[1] for p in chosen]),
            ("triphasic",) * len(chosen),
            tuple(p[2] for p in chosen),
        )

    @cached_property
    def _session(self) -> tuple[Recording, GroundTruth]:
        from ...datasets.mea.recording import ArraySource, Recording

        o, fs = self.options, self.options.sampling_hz
        rng = np.random.default_rng(o.seed)
        cells = np.concatenate([self.hidden[None], self.others])
        templates = self._model.templates(cells)
        window_s = self._window / fs
        spikes = [
            _poisson(
                o.spontaneous_hz,
                o.spontaneous_s - window_s,
                window_s,
                rng if k == 0 else np.random.default_rng((o.seed, 29, k)),
            )
            for k in range(len(cells))
        ]
        stimulation = self.protocol(templates, o.spontaneous_s + window_s)
        end_s = stimulation.time_s.max(initial=o.spontaneous_s) + 2 * window_s
        if o.firing_throughout and len(stimulation):
            spikes = [
                np.concatenate([head, _between(stimulation.time_s, end_s, window_s, o, k)])
                for k, head in enumerate(spikes)
            ]
        samples = round(end_s * fs)
        traces = np.zeros((samples, len(self.positions_um)), np.float32)
        for template, times in zip(templates, spikes, strict=True):
            for t in times:
                start = round(t * fs)
                traces[start : start + template.shape[1]] += template.T
        evoked = self._play(stimulation, traces, o.seed + 1)
        recording = Recording(
            ArraySource(self._stored(traces, rng)),
            samples,
            fs,
            GAIN_UV,
            np.arange(len(self.positions_um)),
            self.positions_um,
            stimulation,
        )
        names = [p.name for p in self._model.parameters]
        onset_s = self._model.timing.onset_ms * 1e-3
        truths = [
            GroundTruth(dict(zip(names, map(float, theta), strict=True)), t + onset_s, hit)
            for theta, t, hit in zip(cells, spikes, evoked, strict=True)
        ]
        return recording, replace(truths[0], others=tuple(truths[1:]))


@lru_cache(maxsize=8)
def _simulation(
    swc: str | None,
    compartment_um: float,
    positions: tuple[tuple[float, float], ...],
    dt_ms: float,
    sampling_hz: float,
    disk_radius_um: float,
    celsius: float,
    float64: bool,
    platform: str,
    batch: int,
) -> Any:
    """One CellSimulation per setting, so backends alike share its compiled functions."""
    from .cell import rgc
    from .simulation import CellSimulation, Timing
    from .swc import SWCError, read_swc

    try:
        if swc is None:
            morphology = rgc(axon_compartment_um=compartment_um)
        else:
            morphology = read_swc(swc, compartment_um)
    except (OSError, SWCError) as error:
        raise SubstratesError(f"options.morphology: {error}") from None
    return CellSimulation(
        np.array(positions),
        morphology,
        Timing(dt_ms, sampling_hz=sampling_hz),
        disk_radius_um=disk_radius_um,
        celsius=celsius,
        float64=float64,
        platform=platform,
        batch=batch,
    )


FIRING_CLEAR_MS = 10.0
"""With firing_throughout, a spontaneous spike's window starts at least this long after a
pulse and ends before the next (ms): the pulse's artefact and the spikes it evokes are
what the protocol scores."""


def _between(
    pulses_s: np.ndarray, end_s: float, window_s: float, o: JaxleyOptions, cell: int
) -> np.ndarray:
    """Cell `cell`'s spontaneous spike times (s) from its first pulse to `end_s`, at
    spontaneous_hz from a stream of its own, less those whose window (window_s long) would
    begin within FIRING_CLEAR_MS after a pulse or overlap the next pulse."""
    start = float(pulses_s.min())
    rng = np.random.default_rng((o.seed, 31, cell))
    times = start + _poisson(o.spontaneous_hz, end_s - window_s - start, window_s, rng)
    pulses = np.sort(pulses_s)
    last = pulses[np.clip(np.searchsorted(pulses, times, side="right") - 1, 0, None)]
    following = np.searchsorted(pulses, times, side="right")
    nxt = np.append(pulses, np.inf)[following]
    clear = (times - last >= FIRING_CLEAR_MS * 1e-3) & (times + window_s <= nxt)
    return times[clear]


def _poisson(
    rate_hz: float, duration_s: float, dead_s: float, rng: np.random.Generator
) -> np.ndarray:
    """Spike times (s) in [0, duration_s): a Poisson process of `rate_hz` with a dead time
    of `dead_s` after each spike (so whole spike windows never overlap)."""
    times, t = [], 0.0
    while rate_hz > 0:
        t += rng.exponential(1 / rate_hz)
        if t >= duration_s:
            break
        times.append(t)
        t += dead_s
    return np.array(times)
