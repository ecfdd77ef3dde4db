"""Stimulation patterns and the cell's responses to them: trials grouped by pattern
(electrodes, per-electrode currents, pulse shape), split into those that fit the model
(single electrodes among the fitting electrodes) and those held out to test its
predictions (other single electrodes and every multi-electrode pattern)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from ...datasets.mea.recording import Recording


@dataclass(frozen=True)
class Pattern:
    """channels: indices of the stimulating electrodes; currents_ua on each; pulse shape."""

    channels: tuple[int, ...]
    currents_ua: tuple[float, ...]
    shape: str

    def vector(self, channels: int) -> np.ndarray:
        """(channels,) µA on every electrode."""
        currents = np.zeros(channels)
        np.add.at(currents, list(self.channels), self.currents_ua)
        return currents

    def label(self) -> str:
        return " ".join(
            f"e{c}:{i:+.3g}µA" for c, i in zip(self.channels, self.currents_ua, strict=True)
        )


@dataclass(frozen=True)
class Responses:
    """A pattern's trials and how many made the cell spike."""

    pattern: Pattern
    trials: int
    spikes: int

    @property
    def probability(self) -> float:
        return self.spikes / self.trials


def responses(recording: Recording, spiked: np.ndarray) -> list[Responses]:
    """Every distinct pattern of the recording's stimulation, with its trials and spikes."""
    index = {int(e): k for k, e in enumerate(recording.electrode_ids)}
    stim = recording.stimulation
    counts: dict[Pattern, list[int]] = {}
    for k in range(len(stim)):
        missing = [e for e in stim.electrodes[k] if e not in index]
        if missing:
            raise ValueError(f"stimulation event {k}: electrode {missing[0]} is not recorded")
        pattern = Pattern(
            tuple(index[e] for e in stim.electrodes[k]),
            tuple(round(c, 6) for c in stim.currents(k)),
            stim.shape[k],
        )
        counts.setdefault(pattern, []).append(bool(spiked[k]))
    return [Responses(p, len(v), int(sum(v))) for p, v in counts.items()]


def fitting_electrodes(
    found: list[Responses], image: np.ndarray, among: Collection[int] | None = None
) -> list[int]:
    """The first half (rounded up) of the singly stimulated electrodes (of those `among`,
    where given), deepest trough in the electrical image (channels, samples) first."""
    single = sorted(
        {
            r.pattern.channels[0]
            for r in found
            if len(r.pattern.channels) == 1 and (among is None or r.pattern.channels[0] in among)
        },
        key=lambda c: image[c].min(),
    )
    return single[: (len(single) + 1) // 2]


def split(found: list[Responses], electrodes: list[int]) -> tuple[list[Responses], list[Responses]]:
    """(fitting, held out): single-electrode patterns on `electrodes`, and all others."""
    fit = [r for r in found if len(r.pattern.channels) == 1 and r.pattern.channels[0] in electrodes]
    return fit, [r for r in found if r not in fit]
