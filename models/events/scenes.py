"""Two-layer reflection scenes (the parallax-aware setting): a transmission texture T and a
weaker reflection texture R, each translating at its own velocity (different parallax),
blended as I = T + R in linear intensity, optionally with a ghost (a second, shifted and
attenuated copy of R, as from the two faces of a pane). Renders frames, the ground-truth
layers, and which layer caused each pixel's change in each frame interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from substrates.datasets.events.synthetic import Texture, frame_times


@dataclass(frozen=True)
class ReflectionScene:
    """velocities in px/s (vx, vy); levels in DN: T spans transmission_dn ± contrast·T,
    R is reflection_gain × its own texture in [0, 2]·(mean); ghost_px: offset of R's
    ghost (None: no ghost) at ghost_gain of R."""

    width: int
    height: int
    duration_s: float
    transmission_velocity: tuple[float, float]
    reflection_velocity: tuple[float, float]
    transmission_seed: int
    reflection_seed: int
    transmission_dn: float = 90.0
    reflection_gain: float = 0.6
    ghost_px: tuple[float, float] | None = None
    ghost_gain: float = 0.5

    @classmethod
    def random(cls, seed: int, width: int = 128, height: int = 96, duration_s: float = 0.2,
               ghost: bool = False) -> ReflectionScene:  # fmt: skip
        """A held-out scene: velocities 60–240 px/s in directions at least 60° apart."""
        rng = np.random.default_rng(seed)
        angle = rng.uniform(0, 2 * math.pi)
        turn = rng.uniform(math.pi / 3, 5 * math.pi / 3)
        speeds = rng.uniform(60, 240, 2)
        vt = (speeds[0] * math.cos(angle), speeds[0] * math.sin(angle))
        vr = (speeds[1] * math.cos(angle + turn), speeds[1] * math.sin(angle + turn))
        offset = tuple(rng.uniform(2, 5, 2) * rng.choice([-1, 1], 2)) if ghost else None
        return cls(width, height, duration_s, vt, vr, 2 * seed + 1000, 2 * seed + 1001,
                   ghost_px=offset)  # fmt: skip

    def layers(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(T, R) in DN at time t_s."""
        w, h = self.width, self.height
        vt, vr = self.transmission_velocity, self.reflection_velocity
        transmission = self.transmission_dn * (1 + 0.7 * Texture.random(
            self.transmission_seed).render(w, h, vt[0] * t_s, vt[1] * t_s))  # fmt: skip
        texture = Texture.random(self.reflection_seed)
        reflection = 1 + texture.render(w, h, vr[0] * t_s, vr[1] * t_s)
        if self.ghost_px is not None:
            gx, gy = self.ghost_px
            reflection += self.ghost_gain * (1 + texture.render(w, h, vr[0] * t_s + gx,
                                                                vr[1] * t_s + gy))  # fmt: skip
        return transmission, self.reflection_gain * self.transmission_dn * reflection

    def render(self) -> RenderedScene:
        """Frames (≤ 1 px of motion between them), their times (µs), both layers per frame,
        and per interval and pixel which layer changed the log intensity more (0: T, 1: R)."""
        fastest = max(math.hypot(*self.transmission_velocity),
                      math.hypot(*self.reflection_velocity))  # fmt: skip
        times = frame_times(self.duration_s, fastest)
        transmission, reflection = zip(*(self.layers(t * 1e-6) for t in times), strict=True)
        t_layer, r_layer = np.stack(transmission), np.stack(reflection)
        frames = t_layer + r_layer
        through_t = np.abs(np.log(t_layer[1:] + r_layer[:-1]) - np.log(frames[:-1]))
        through_r = np.abs(np.log(t_layer[:-1] + r_layer[1:]) - np.log(frames[:-1]))
        labels = (through_r > through_t).astype(np.int8)
        return RenderedScene(self, frames, times, t_layer, r_layer, labels)


@dataclass(frozen=True)
class RenderedScene:
    """frames, transmission, reflection: (T, H, W) DN; times: (T,) µs; labels: (T − 1, H, W)
    the layer (0 transmission, 1 reflection) behind each pixel's change in each interval."""

    scene: ReflectionScene
    frames: np.ndarray
    times: np.ndarray
    transmission: np.ndarray
    reflection: np.ndarray
    labels: np.ndarray

    def event_labels(self, events: np.ndarray) -> np.ndarray:
        """The layer behind each event: the label of its pixel in the interval it falls in."""
        interval = np.clip(np.searchsorted(self.times, events["t"], side="left") - 1, 0,
                           len(self.labels) - 1)  # fmt: skip
        return self.labels[interval, events["y"], events["x"]]
