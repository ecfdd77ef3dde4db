"""Two-layer reflection scenes (the parallax-aware setting): a transmission texture T and a
weaker reflection texture R, each moving under its own motion — a translation, optionally
composed with a homography about the image centre that grows linearly in time (zoom,
rotation, shear, perspective: planes at different depths and tilts) — blended as I = T + R
in linear intensity, optionally with a ghost (a second, shifted and attenuated copy of R, as
from the two faces of a pane). Renders frames, the ground-truth layers, and which layer
caused each pixel's change in each frame interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...datasets.events.synthetic import Texture, frame_times


@dataclass(frozen=True)
class ReflectionScene:
    """velocities in px/s (vx, vy); warps: a layer's homography rate G (3 × 3, per second,
    row-major; None: a pure translation): at time t the layer shows its texture at
    (I + tG)⁻¹(p − c − vt) + c for pixel p, c the image centre; levels in DN: T spans
    transmission_dn·(1 ± 0.7), R is reflection_gain·transmission_dn × its texture in
    [0, 2]; ghost_px: offset of R's ghost (None: no ghost) at ghost_gain of R."""

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
    transmission_warp: tuple[float, ...] | None = None
    reflection_warp: tuple[float, ...] | None = None

    @classmethod
    def random(
        cls,
        seed: int,
        width: int = 128,
        height: int = 96,
        duration_s: float = 0.2,
        ghost: bool = False,
        homography: bool = False,
    ) -> ReflectionScene:
        """A held-out scene: velocities 60–240 px/s in directions at least 60° apart; with
        `homography`, each layer also zooms and turns at up to 0.4 /s and tilts slightly."""
        rng = np.random.default_rng(seed)
        angle = rng.uniform(0, 2 * math.pi)
        turn = rng.uniform(math.pi / 3, 5 * math.pi / 3)
        speeds = rng.uniform(60, 240, 2)
        vt = (speeds[0] * math.cos(angle), speeds[0] * math.sin(angle))
        vr = (speeds[1] * math.cos(angle + turn), speeds[1] * math.sin(angle + turn))
        offset = tuple(rng.uniform(2, 5, 2) * rng.choice([-1, 1], 2)) if ghost else None
        warps = [None, None]
        if homography:
            for k in (0, 1):
                zoom, turn = rng.uniform(-0.4, 0.4, 2)
                tilt = rng.uniform(-1e-3, 1e-3, 2)
                warps[k] = tuple(float(g) for g in (zoom, -turn, 0, turn, zoom, 0, *tilt, 0))
        seeds = (2 * seed + 1000, 2 * seed + 1001)
        return cls(
            width,
            height,
            duration_s,
            vt,
            vr,
            *seeds,
            ghost_px=offset,
            transmission_warp=warps[0],
            reflection_warp=warps[1],
        )

    def source(
        self,
        velocity: tuple[float, float],
        warp: tuple[float, ...] | None,
        t_s: float,
        shift: tuple[float, float] = (0.0, 0.0),
    ) -> tuple[np.ndarray, np.ndarray]:
        """Texture coordinates each pixel shows at t_s under this motion (see the class doc)."""
        y, x = np.mgrid[0 : self.height, 0 : self.width].astype(np.float64)
        cx, cy = (self.width - 1) / 2, (self.height - 1) / 2
        px, py = x - cx - velocity[0] * t_s - shift[0], y - cy - velocity[1] * t_s - shift[1]
        if warp is None:
            return px + cx, py + cy
        inverse = np.linalg.inv(np.eye(3) + t_s * np.reshape(warp, (3, 3)))
        mapped = np.tensordot(inverse, np.stack([px, py, np.ones_like(px)]), axes=1)
        return mapped[0] / mapped[2] + cx, mapped[1] / mapped[2] + cy

    def motion(self, layer: int, t_s: float = 0.0) -> np.ndarray:
        """The transmission's (0) or reflection's (1) motion at time t_s as six numbers (see
        models.events.cmax), the homography's tilt left out (second order at the centre): a
        texture point at offset d moves at v + A·d, and at t_s sits at c + v·t_s +
        (I + t_s·A)·d, so the velocity at the centre is v − t_s·A·(I + t_s·A)⁻¹·v and its
        gradient A·(I + t_s·A)⁻¹."""
        velocity = np.array((self.transmission_velocity, self.reflection_velocity)[layer])
        warp = (self.transmission_warp, self.reflection_warp)[layer]
        rate = np.zeros((2, 2)) if warp is None else np.reshape(warp, (3, 3))[:2, :2]
        gradient = rate @ np.linalg.inv(np.eye(2) + t_s * rate)
        return np.array([*(velocity - t_s * gradient @ velocity), *gradient.ravel()])

    def flow(self, layer: int, t_s: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(H, W) velocities (px/s, x and y) of the transmission (0) or reflection (1) at
        time t_s, homography and all: the pixel showing texture offset d (from the centre)
        sits at c + v·t + a/w for (a, w) = (I + t·G)·(d, 1), so it moves at
        v + (G_top·(d, 1)·w − a·(g·(d, 1)))/w², G_top the top two rows of the warp rate G and
        g its bottom row."""
        velocity = (self.transmission_velocity, self.reflection_velocity)[layer]
        warp = (self.transmission_warp, self.reflection_warp)[layer]
        qx, qy = self.source(velocity, warp, t_s)
        if warp is None:
            return np.full_like(qx, velocity[0]), np.full_like(qy, velocity[1])
        rate = np.reshape(warp, (3, 3))
        offset = np.stack([qx - (self.width - 1) / 2, qy - (self.height - 1) / 2, np.ones_like(qx)])
        moved = np.tensordot(rate, offset, axes=1)  # G·(d, 1): (3, H, W)
        w = 1 + t_s * moved[2]
        a = offset[:2] + t_s * moved[:2]
        return tuple(velocity[k] + (moved[k] * w - a[k] * moved[2]) / w**2 for k in (0, 1))

    def fastest_px_s(self) -> float:
        """An upper bound on any pixel's image speed (px/s), from the corners at t = 0."""
        corners = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]]) * [
            (self.width - 1) / 2,
            (self.height - 1) / 2,
        ]
        speeds, margin = [], 1.0
        for velocity, warp in (
            (self.transmission_velocity, self.transmission_warp),
            (self.reflection_velocity, self.reflection_warp),
        ):
            flow = (
                np.zeros((4, 2))
                if warp is None
                else np.array([(np.reshape(warp, (3, 3)) @ [*c, 1])[:2] for c in corners])
            )
            speeds.append(np.hypot(*(flow + velocity).T).max())
            margin = margin if warp is None else 1.2  # first-order flow: room for the rest
        return float(max(speeds)) * margin

    def layers(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(T, R) in DN at time t_s."""
        vt, vr = self.transmission_velocity, self.reflection_velocity
        at = self.source(vt, self.transmission_warp, t_s)
        transmission = self.transmission_dn * (
            1 + 0.7 * Texture.random(self.transmission_seed).at(*at)
        )
        texture = Texture.random(self.reflection_seed)
        reflection = 1 + texture.at(*self.source(vr, self.reflection_warp, t_s))
        if self.ghost_px is not None:
            ghost = self.source(vr, self.reflection_warp, t_s, self.ghost_px)
            reflection += self.ghost_gain * (1 + texture.at(*ghost))
        return transmission, self.reflection_gain * self.transmission_dn * reflection

    def render(self) -> RenderedScene:
        """Frames (≤ 1 px of motion between them), their times (µs), both layers per frame,
        and per interval and pixel how much each layer alone changes the log intensity."""
        times = frame_times(self.duration_s, self.fastest_px_s())
        transmission, reflection = zip(*(self.layers(t * 1e-6) for t in times), strict=True)
        t_layer, r_layer = np.stack(transmission), np.stack(reflection)
        frames = t_layer + r_layer
        through_t = np.abs(np.log(t_layer[1:] + r_layer[:-1]) - np.log(frames[:-1]))
        through_r = np.abs(np.log(t_layer[:-1] + r_layer[1:]) - np.log(frames[:-1]))
        return RenderedScene(self, frames, times, t_layer, r_layer, through_t, through_r)


@dataclass(frozen=True)
class RenderedScene:
    """frames, transmission, reflection: (T, H, W) DN; times: (T,) µs; through_t, through_r:
    (T − 1, H, W) how much each pixel's log intensity would change in each interval if only
    the transmission, or only the reflection, moved."""

    scene: ReflectionScene
    frames: np.ndarray
    times: np.ndarray
    transmission: np.ndarray
    reflection: np.ndarray
    through_t: np.ndarray
    through_r: np.ndarray

    @property
    def labels(self) -> np.ndarray:
        """(T − 1, H, W) the layer behind each pixel's change (0 transmission, 1 reflection)."""
        return (self.through_r > self.through_t).astype(np.int8)

    @property
    def dominance(self) -> np.ndarray:
        """(T − 1, H, W) how many times more the leading layer changed the log intensity."""
        larger = np.maximum(self.through_t, self.through_r)
        return larger / np.maximum(np.minimum(self.through_t, self.through_r), 1e-12)

    def at_events(self, per_interval: np.ndarray, events: np.ndarray) -> np.ndarray:
        """A (T − 1, H, W) array read at each event's pixel in the interval it falls in."""
        interval = np.clip(
            np.searchsorted(self.times, events["t"], side="left") - 1, 0, len(per_interval) - 1
        )
        return per_interval[interval, events["y"], events["x"]]

    def event_labels(self, events: np.ndarray) -> np.ndarray:
        """The layer behind each event."""
        return self.at_events(self.labels, events)
