"""Fit one cell's Hodgkin–Huxley model to a recording, and predict held-out stimulation.

From the recording alone: spontaneous spikes (detection.py, on the recording as
preprocessed for detection where one is given) give the electrical image, taken from the
unfiltered traces less a baseline per spike (features.baselined_image) so that no
filter distorts what the model must reproduce;
stimulation trials give evoked spikes once the stimulation artefact is removed
(artefacts.py), grouped into patterns and split (patterns.py); the
fitting electrodes' activation curves give thresholds (activation.py). NPE over the
model's prior (inference.py) gives a posterior at those features; Levenberg–Marquardt
through the simulator (refine.py) refines its most probable samples, the most probable
turned round the circle, and starts the image alone suggests (image_anchor), on the
image; a grid
over channel densities and height (calibrate.py) then matches the thresholds too. Of the
three (NPE, refined, calibrated), the one with the highest likelihood of both data
(image χ² and threshold errors, each in units of its own noise) is the fitted cell, which
then predicts spike or no spike for every held-out pattern (the majority of its trials
observed); every candidate's predictions are kept beside it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...backends.mea.base import CellModel, Parameter
from ...datasets.mea.recording import Recording
from .activation import fit_activation
from .artefacts import ArtefactHandling, Artefacts
from .baselines import logistic_baseline, majority_baseline, threshold_baseline
from .calibrate import Target, calibrate, score
from .detection import evoked_spikes, given_spikes, spontaneous_spikes
from .features import baselined_image, electrical_image
from .inference import Observation, Posterior, npe
from .patterns import Responses, fitting_electrodes, responses, split
from .refine import Refined, refine_all
from .summary import align, features

BEFORE_MS = 1.0
"""Electrical images start this long before the reference channel's trough (ms)."""
MIN_SPIKES = 10
"""Spontaneous spikes an electrical image needs."""
MIN_TRIALS = 3
"""Trials a stimulation pattern needs (the fitting patterns' median): fewer cannot say
how often a current makes the cell spike, so an activation curve rests on single
outcomes."""
REFINE_STARTS = 4
"""Refinement starts from this many of the most probable posterior samples and keeps the
one that fits the image best (Levenberg–Marquardt can stall against the prior's walls)."""
TURNS = 4
"""The most probable sample is also refined with each periodic parameter (the cell's
angle) turned by every 1/TURNS of its circle: from an angle more than about a radian off
the image's, Levenberg–Marquardt stays in a wrong basin, and NPE's angle is often that
far off (its posterior SD is about a radian)."""
ANCHORED_TURNS = 8
"""Refinement also starts from the image itself, whatever NPE says: the soma over the
electrode where the spike is deepest, at the middle of the prior's depth, NPE's most
probable channel densities, and the angle in each of this many directions. On the
512-electrode session NPE put one cell 76 µm and 2 rad off; from all seven of its starts
Levenberg–Marquardt drove the depth to the prior's wall (image loss 28,744 µV² against the
true cell's 11,520); two of these eight starts reach the true cell's loss."""


@dataclass(frozen=True)
class CellFit:
    """The fitted cell (theta, from `chosen`: 'npe', 'refined' or 'calibrated'), how it was
    reached (each candidate's parameters in `candidates`, its score, lower better, in
    `scores`), and predictions (bool per pattern) for the fitting and held-out patterns:
    the fitted cell's, and for the held-out ones every candidate's and the three
    baselines' (`predicted_held_out_by`: 'threshold_baseline', 'logistic_baseline',
    'majority'; baselines.py), so what the choice gained or lost, and what the model
    adds, can be read off."""

    parameters: tuple[Parameter, ...]
    theta: np.ndarray
    chosen: str
    posterior: Posterior
    refined: Refined
    candidates: dict[str, np.ndarray]
    scores: dict[str, float]
    thresholds_ua: dict[int, float]
    spikes: int
    fitting: list[Responses]
    held_out: list[Responses]
    predicted_fitting: np.ndarray
    predicted_held_out_by: dict[str, np.ndarray]

    @property
    def predicted_held_out(self) -> np.ndarray:
        return self.predicted_held_out_by[self.chosen]

    def accuracy_held_out_of(self, candidate: str) -> float:
        """Held-out accuracy had `candidate` been chosen."""
        return self._accuracy(self.held_out, self.predicted_held_out_by[candidate])

    @staticmethod
    def _accuracy(found: list[Responses], predicted: np.ndarray) -> float:
        observed = np.array([r.probability > 0.5 for r in found])
        return float(np.mean(observed == predicted)) if len(found) else float("nan")

    @property
    def accuracy_fitting(self) -> float:
        return self._accuracy(self.fitting, self.predicted_fitting)

    @property
    def accuracy_held_out(self) -> float:
        return self._accuracy(self.held_out, self.predicted_held_out)


def predict(
    model: CellModel, theta: np.ndarray, found: list[Responses], channels: int
) -> np.ndarray:
    """(patterns,) bool: whether the cell `theta` spikes for each pattern."""
    predicted = np.zeros(len(found), bool)
    for shape in {r.pattern.shape for r in found}:
        chosen = [k for k, r in enumerate(found) if r.pattern.shape == shape]
        currents = np.array([found[k].pattern.vector(channels) for k in chosen])
        predicted[chosen] = model.spikes_of(theta, currents, shape)
    return predicted


@dataclass(frozen=True)
class Observed:
    """What a recording shows of its cell: spikes, electrical image (aligned on `channel`'s
    trough at sample `before`), patterns split into fitting and held out, thresholds on
    the fitting electrodes (µA), the observation NPE conditions on, and the stimulation
    artefact removed before evoked spikes were detected (None: removal not asked for)."""

    spikes: int
    image: np.ndarray
    channel: int
    before: int
    fitting: list[Responses]
    held_out: list[Responses]
    thresholds_ua: dict[int, float]
    thresholds_log_sd: dict[int, float]
    observation: Observation
    artefacts: Artefacts | None = None

    @property
    def target(self) -> Target:
        """What a fitted cell must reproduce, for calibration and the final choice."""
        o = self.observation
        return Target(
            self.image,
            self.channel,
            self.before,
            o.image_noise_uv,
            o.electrodes,
            np.array(list(self.thresholds_ua.values())),
            o.shape,
            np.array(list(self.thresholds_log_sd.values())),
        )


def observe(
    recording: Recording,
    model: CellModel,
    seed: int = 0,
    detection: Recording | None = None,
    artefacts: ArtefactHandling = "remove",
    spikes: np.ndarray | None = None,
    spontaneous: tuple[Recording, Recording] | None = None,
    fitting_within_um: float | None = None,
) -> Observed:
    """Everything the fit needs from `recording`; ValueError says, before any simulation,
    what it lacks (among it stimulation that cannot constrain a fit: patterns repeated
    fewer than MIN_TRIALS times, or no fitting electrode that makes the cell spike on half
    of a pattern's trials).
    `detection`: the same samples preprocessed for spike detection (filtered,
    re-referenced); spontaneous and evoked spikes are found in it, the image to fit is
    taken from `recording` (default: detection on `recording` itself).
    `artefacts`: what happens to the stimulation artefact before evoked spikes are
    detected (artefacts.ArtefactHandling; saturation is read from `recording`). `spikes`: the
    cell's spontaneous spikes (samples near their troughs) as a spike sorter found them,
    when the recording holds several cells; by default they are detected here, the
    recording taken to hold one. `spontaneous`: a separate recording of spontaneous
    activity on the same array, (as recorded, preprocessed for detection); the spontaneous
    spikes (and `spikes`), the image and the detection threshold come from it instead of
    the quiet spans of `recording`. `fitting_within_um`: fitting electrodes only among
    those this close to the reference electrode (where the spike is deepest; µm), as an
    amortised fit needs (amortised.py); by default among all."""
    fs = recording.sampling_hz
    if abs(model.sampling_hz - fs) > 1e-6:
        raise ValueError(
            f"the model samples at {model.sampling_hz:g} Hz, the recording at "
            f"{fs:g} Hz: set sampling_hz in the simulator config"
        )
    stim = recording.stimulation
    for k in range(len(stim)):
        if max(map(abs, stim.currents(k))) > model.max_current_ua:
            raise ValueError(
                f"stimulation event {k}: currents {stim.currents(k)} µA are outside "
                f"the model's ±{model.max_current_ua:g} µA"
            )
    before = round(BEFORE_MS * 1e-3 * fs)
    after = model.template_samples - before
    detected = detection or recording
    if detected.samples != recording.samples or detected.channels != recording.channels:
        raise ValueError("the preprocessed recording differs in samples or channels")
    quiet, quiet_detected = spontaneous or (recording, detected)
    if spontaneous is not None:
        _same_array(recording, quiet)
    spont = (
        spontaneous_spikes(quiet_detected, before, after)
        if spikes is None
        else given_spikes(quiet_detected, spikes, before, after)
    )
    where = "in the spontaneous recording" if spontaneous else "before and between pulses"
    if len(spont.samples) < MIN_SPIKES:
        raise ValueError(
            f"{len(spont.samples)} spontaneous spikes found {where}; at least "
            f"{MIN_SPIKES} are needed for an electrical image"
        )
    matched = electrical_image(quiet_detected, spont.samples, before, after)
    evoked = evoked_spikes(
        detected,
        matched,
        spont,
        seed=seed,
        raw=recording,
        artefacts=artefacts,
    )
    found = responses(recording, evoked.spiked)
    # the trough of a filtered trace may sit a sample off the unfiltered one's
    image, sample_noise = baselined_image(quiet, spont.samples, before, after)
    image = align(image, spont.channel, before)
    among = None
    if fitting_within_um is not None:
        away = np.linalg.norm(
            recording.positions_um - recording.positions_um[spont.channel], axis=1
        )
        among = set(np.flatnonzero(away <= fitting_within_um).tolist())
    electrodes = fitting_electrodes(found, matched, among)  # the detection image: least noise
    if not electrodes:
        near = "" if among is None else f" within {fitting_within_um:g} µm of the cell"
        raise ValueError(
            f"no single-electrode stimulation{near} in the recording to fit thresholds"
        )
    fitting, held_out = split(found, electrodes)
    _constrains(fitting, recording)
    shape = Counter(r.pattern.shape for r in fitting).most_common(1)[0][0]
    thresholds, log_sd = {}, {}
    for e in electrodes:
        curve = [r for r in fitting if r.pattern.channels[0] == e and r.pattern.shape == shape]
        fitted = fit_activation(
            np.array([r.pattern.currents_ua[0] for r in curve]),
            np.array([r.spikes for r in curve]),
            np.array([r.trials for r in curve]),
        )
        thresholds[e] = float(np.clip(fitted.threshold_ua, 0.5, model.max_current_ua))
        log_sd[e] = fitted.threshold_log_sd
    x = features(image, np.array(list(thresholds.values())), fs, before)
    noise = sample_noise / np.sqrt(len(spont.samples))
    observation = Observation(spont.channel, before, electrodes, shape, noise, x)
    return Observed(
        len(spont.samples),
        image,
        spont.channel,
        before,
        fitting,
        held_out,
        thresholds,
        log_sd,
        observation,
        evoked.artefacts,
    )


def _same_array(recording: Recording, spontaneous: Recording) -> None:
    """ValueError unless the spontaneous recording is of the same electrodes, at the
    same rate, as the stimulation recording."""
    if abs(spontaneous.sampling_hz - recording.sampling_hz) > 1e-6:
        raise ValueError(
            f"the spontaneous recording samples at {spontaneous.sampling_hz:g} Hz, the "
            f"stimulation recording at {recording.sampling_hz:g} Hz"
        )
    if not np.array_equal(spontaneous.electrode_ids, recording.electrode_ids):
        raise ValueError(
            f"the spontaneous recording has electrodes {_ids(spontaneous)}, the "
            f"stimulation recording {_ids(recording)}: they must be one array"
        )


def _ids(recording: Recording) -> str:
    ids = [int(e) for e in recording.electrode_ids]
    shown = ", ".join(map(str, ids[:4])) + (", …" if len(ids) > 4 else "")
    return f"{shown} ({len(ids)})"


def _constrains(fitting: list[Responses], recording: Recording) -> None:
    """ValueError, saying what is needed, unless the fitting patterns can constrain
    thresholds: repeated (median trials at least MIN_TRIALS) and some pattern making the
    cell spike on half of its trials (else every threshold lies above the currents
    given)."""
    trials = sorted(r.trials for r in fitting)
    median = trials[len(trials) // 2]
    if median < MIN_TRIALS:
        raise ValueError(
            f"the {len(trials)} fitting patterns were given {median} trial"
            f"{'s' * (median != 1)} each (median); an activation threshold needs at least "
            f"{MIN_TRIALS} trials of each pattern"
        )
    if not any(r.probability >= 0.5 for r in fitting):
        ids = recording.electrode_ids
        names = sorted({f"{int(ids[r.pattern.channels[0]])}" for r in fitting})
        top = max(abs(r.pattern.currents_ua[0]) for r in fitting)
        raise ValueError(
            f"no fitting pattern (electrodes {', '.join(names)}, up to {top:g} µA) made "
            "the cell spike on half of its trials: thresholds lie above the currents "
            "given; stimulate these electrodes at higher currents"
        )


def refine_starts(
    model: CellModel, probable: np.ndarray, anchor: dict[str, float] | None = None
) -> np.ndarray:
    """Where refinement starts: the `probable` samples (most probable first), then the first
    with each periodic parameter turned by k/TURNS of its circle, k = 1 … TURNS − 1; with
    `anchor` (parameter name → value, from the data), the first with those values set and
    each periodic parameter at k/ANCHORED_TURNS of its circle, k = 0 … ANCHORED_TURNS − 1."""
    starts = [*probable]
    names = [p.name for p in model.parameters]
    anchored = anchor or {}
    for k, p in enumerate(model.parameters):
        if p.periodic:
            for turn in range(1, TURNS):
                start = probable[0].copy()
                start[k] = p.inside(start[k] + turn * (p.high - p.low) / TURNS)
                starts.append(start)
            for turn in range(ANCHORED_TURNS if anchored else 0):
                start = probable[0].copy()
                for name, value in anchored.items():
                    start[names.index(name)] = value
                start[k] = p.low + turn * (p.high - p.low) / ANCHORED_TURNS
                starts.append(start)
    return np.array(starts)


def image_anchor(model: CellModel, position_um: np.ndarray) -> dict[str, float]:
    """The start the image alone suggests: the soma (x_um, y_um) over `position_um`, the
    electrode where the spike is deepest, and height_um at the middle of its prior (the
    parameters the model lacks are left out)."""
    names = {p.name: p for p in model.parameters}
    anchor = {"x_um": float(position_um[0]), "y_um": float(position_um[1])}
    if "height_um" in names:
        anchor["height_um"] = (names["height_um"].low + names["height_um"].high) / 2
    return {name: float(names[name].inside(v)) for name, v in anchor.items() if name in names}


def fit_cell(
    recording: Recording,
    model: CellModel,
    simulations: int = 1000,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    observed: Observed | None = None,
    posterior: Posterior | None = None,
) -> CellFit:
    """Fit `model` to the one cell of `recording` (see the module's docstring); `observed`
    if observe() already ran, `posterior` if one was drawn already (an amortised fit's,
    amortised.py: then no NPE is trained here, and refinement starts from its samples
    alone, the image's anchor being what its bank was drawn around)."""
    seen = observed or observe(recording, model, seed)
    anchor = None
    if posterior is None:
        posterior = npe(model, seen.observation, simulations, seed, progress=progress)
        anchor = image_anchor(model, recording.positions_um[seen.channel])
    starts = refine_starts(model, posterior.most_probable(REFINE_STARTS), anchor)
    refined = min(
        refine_all(model, starts, seen.image, seen.channel, seen.before),
        key=lambda r: r.loss_after_uv2,
    )
    target = seen.target
    calibrated = calibrate(model, refined.theta, target)
    candidates = {"npe": posterior.best, "refined": refined.theta, "calibrated": calibrated}
    scores = score(model, np.array(list(candidates.values())), target)
    chosen = list(candidates)[int(np.argmin(scores))]
    theta = candidates[chosen]
    held_out = {
        name: predict(model, c, seen.held_out, recording.channels) for name, c in candidates.items()
    }
    held_out["threshold_baseline"] = threshold_baseline(
        seen.held_out, list(seen.thresholds_ua.values())
    )
    held_out["logistic_baseline"] = logistic_baseline(
        seen.fitting, seen.held_out, recording.positions_um, seen.channel
    )
    held_out["majority"] = majority_baseline(seen.held_out)
    return CellFit(
        model.parameters,
        theta,
        chosen,
        posterior,
        refined,
        candidates,
        dict(zip(candidates, map(float, scores), strict=True)),
        seen.thresholds_ua,
        seen.spikes,
        seen.fitting,
        seen.held_out,
        predict(model, theta, seen.fitting, recording.channels),
        held_out,
    )
