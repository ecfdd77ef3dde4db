"""The DVS pixel model shared by `events.sim` (numba) and `events.sim_gpu` (torch), and a
per-pixel reference written as plainly as possible.

Per frame interval (t0, t1], per pixel, with intensity I in DN (0..255):
1. lin-log: L = I·ln(20)/20 for I ≤ 20 DN, else ln(I) (v2e's lin_log);
2. photoreceptor low-pass: lp ← lp + ε·(L − lp), ε = min(1, (I + 20)/275 · Δt · 2π·f_c),
   so bright pixels follow faster (f_c = 0: lp = L);
3. leak: the reference level drops by Δt · leak_hz · r · θ_on (r log-normal per pixel);
4. crossings: the reference moves in steps of θ_on (up) or θ_off (down) while lp has passed
   it; the j-th crossing is timestamped by linear interpolation of lp between the frames
   (ESIM), not spread by rank; a crossing the leak had already passed at t0 gets t0;
5. refractory: a crossing closer than `refractory_us` to the pixel's last emitted event is
   not emitted (the reference still moves, as in ESIM);
6. shot noise: with probability rate·Δt·(1 − 0.75·(I + 20)/275) per pixel an event of
   random polarity at a uniform time in the interval, and the reference resets to lp.
Thresholds are drawn per pixel from N(θ, σ) (≥ 0.01) at the first frame. All randomness
comes from numpy's Generator(seed), drawn the same way for every implementation, so the
CPU and GPU tiers give the same events. Timestamps are µs, rounded to the nearest.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit

from .dvs_params import LOG_LINEAR_DN, DVSParams


@dataclass
class PixelState:
    """Per-pixel state (H, W), float64: filtered log intensity, reference level, thresholds,
    leak factor, last emitted event time (µs, −inf before the first)."""

    lp: np.ndarray
    base: np.ndarray
    theta_on: np.ndarray
    theta_off: np.ndarray
    leak: np.ndarray
    last_us: np.ndarray


def lin_log(intensity: np.ndarray) -> np.ndarray:
    """ln(I), continued linearly below 20 DN (so black is finite)."""
    i = np.asarray(intensity, dtype=np.float64)
    linear = i * (math.log(LOG_LINEAR_DN) / LOG_LINEAR_DN)
    return np.where(i <= LOG_LINEAR_DN, linear, np.log(np.maximum(i, LOG_LINEAR_DN)))


def initial_state(frame: np.ndarray, params: DVSParams, rng: np.random.Generator) -> PixelState:
    """The state at the first frame: thresholds and leak factors drawn, lp = base = L."""
    shape = frame.shape
    level = lin_log(frame)
    on = np.maximum(rng.normal(params.threshold_on, params.threshold_sigma, shape), 0.01)
    off = np.maximum(rng.normal(params.threshold_off, params.threshold_sigma, shape), 0.01)
    leak = np.exp(math.log(10) * params.leak_decades * rng.normal(0.0, 1.0, shape))
    return PixelState(level.copy(), level.copy(), on, off, leak, np.full(shape, -np.inf))


@dataclass(frozen=True)
class IntervalNoise:
    """The draws of one interval (H, W): uniform for the shot-noise test, its time and
    polarity."""

    chance: np.ndarray
    when: np.ndarray
    polarity: np.ndarray

    @classmethod
    def draw(cls, rng: np.random.Generator, shape: tuple[int, ...]) -> IntervalNoise:
        return cls(rng.random(shape), rng.random(shape), rng.random(shape))


def interval_noise(rng: np.random.Generator, frame: np.ndarray, params: DVSParams,
                   dt_s: float) -> tuple[IntervalNoise, np.ndarray]:  # fmt: skip
    """This interval's draws and per-pixel shot-noise probability (no draws, probability 0,
    when the model has no shot noise)."""
    shape = np.shape(frame)
    if params.shot_noise_hz == 0:
        none = np.zeros(shape)
        return IntervalNoise(np.ones(shape), none, none), none
    brightness = (np.asarray(frame, np.float64) + LOG_LINEAR_DN) / 275.0
    return IntervalNoise.draw(rng, shape), params.shot_noise_hz * dt_s * (1 - 0.75 * brightness)


def smoothing(frame: np.ndarray, params: DVSParams, dt_s: float) -> np.ndarray:
    """ε of the low-pass for this interval (1 when the filter is off)."""
    if params.cutoff_hz == 0:
        return np.ones(np.shape(frame))
    brightness = (np.asarray(frame, np.float64) + LOG_LINEAR_DN) / 275.0
    return np.minimum(1.0, brightness * dt_s * 2 * math.pi * params.cutoff_hz)


@dataclass(frozen=True)
class Interval:
    """One frame interval's inputs: (t0, t1] in µs and its length dt_s, the lin-log level and
    the low-pass ε of the closing frame, and its shot-noise draws and probability."""

    t0: float
    t1: float
    dt_s: float
    level: np.ndarray
    eps: np.ndarray
    noise: IntervalNoise
    shot: np.ndarray


def start(frames: np.ndarray, times_us: np.ndarray, params: DVSParams, seed: int
          ) -> tuple[PixelState, Iterator[Interval]]:  # fmt: skip
    """The initial state and every interval's inputs, with the random numbers drawn in the
    one order all implementations share (so the CPU, GPU and reference tiers agree)."""
    rng = np.random.default_rng(seed)
    state = initial_state(frames[0], params, rng)

    def intervals() -> Iterator[Interval]:
        for k in range(1, len(frames)):
            t0, t1 = float(times_us[k - 1]), float(times_us[k])
            dt_s = (t1 - t0) * 1e-6
            noise, shot = interval_noise(rng, frames[k], params, dt_s)
            yield Interval(t0, t1, dt_s, lin_log(frames[k]), smoothing(frames[k], params, dt_s),
                           noise, shot)  # fmt: skip

    return state, intervals()


@njit(cache=True)
def _interval(level, eps, shot, noise_chance, noise_when, noise_polarity, lp, base, theta_on,
              theta_off, leak_step, last_us, t0, t1, refractory, xs, ys, ts, ps):  # fmt: skip
    """Advance every pixel over (t0, t1] µs; append events to xs/ys/ts/ps from index 0;
    returns the count (buffers must hold it: the caller sizes them by `_capacity`)."""
    height, width = level.shape
    n = 0
    dt = t1 - t0
    for y in range(height):
        for x in range(width):
            start = lp[y, x]
            end = start + eps[y, x] * (level[y, x] - start)
            lp[y, x] = end
            ref = base[y, x] - leak_step[y, x]
            slope = end - start
            if noise_chance[y, x] < shot[y, x]:
                t = np.floor(t0 + noise_when[y, x] * dt + 0.5)
                xs[n], ys[n], ts[n] = x, y, t
                ps[n] = 1 if noise_polarity[y, x] < 0.5 else 0
                n += 1
                last_us[y, x] = t
                base[y, x] = end
                continue
            while end - ref >= theta_on[y, x]:
                ref += theta_on[y, x]
                frac = (ref - start) / slope if slope > 0 else 0.0
                t = np.floor(t0 + max(frac, 0.0) * dt + 0.5)
                if t - last_us[y, x] >= refractory:
                    xs[n], ys[n], ts[n], ps[n] = x, y, t, 1
                    n += 1
                    last_us[y, x] = t
            while end - ref <= -theta_off[y, x]:
                ref -= theta_off[y, x]
                frac = (ref - start) / slope if slope < 0 else 0.0
                t = np.floor(t0 + max(frac, 0.0) * dt + 0.5)
                if t - last_us[y, x] >= refractory:
                    xs[n], ys[n], ts[n], ps[n] = x, y, t, 0
                    n += 1
                    last_us[y, x] = t
            base[y, x] = ref
    return n


def leak_step(state: PixelState, params: DVSParams, dt_s: float) -> np.ndarray:
    return dt_s * params.leak_hz * state.leak * state.theta_on


def reference_interval(
    level: np.ndarray, eps: np.ndarray, shot: np.ndarray, noise: IntervalNoise,
    state: PixelState, leak: np.ndarray, t0: float, t1: float, refractory: float,
) -> list[tuple[int, int, float, int]]:  # fmt: skip
    """The same interval as `_interval`, pixel by pixel in plain Python (the benchmark's
    anchor and the tests' reference)."""
    events = []
    height, width = level.shape
    for y in range(height):
        for x in range(width):
            start = float(state.lp[y, x])
            end = start + float(eps[y, x]) * (float(level[y, x]) - start)
            state.lp[y, x] = end
            ref = float(state.base[y, x]) - float(leak[y, x])
            slope = end - start
            if noise.chance[y, x] < shot[y, x]:
                t = math.floor(t0 + float(noise.when[y, x]) * (t1 - t0) + 0.5)
                events.append((x, y, t, 1 if noise.polarity[y, x] < 0.5 else 0))
                state.last_us[y, x], state.base[y, x] = t, end
                continue
            for sign, theta in ((1, float(state.theta_on[y, x])),
                                (-1, float(state.theta_off[y, x]))):  # fmt: skip
                while sign * (end - ref) >= theta:
                    ref += sign * theta
                    moving = slope > 0 if sign > 0 else slope < 0
                    frac = (ref - start) / slope if moving else 0.0
                    t = math.floor(t0 + max(frac, 0.0) * (t1 - t0) + 0.5)
                    if t - state.last_us[y, x] >= refractory:
                        events.append((x, y, t, 1 if sign > 0 else 0))
                        state.last_us[y, x] = t
            state.base[y, x] = ref
    return events


def capacity(level: np.ndarray, eps: np.ndarray, state: PixelState, leak: np.ndarray) -> int:
    """An upper bound on this interval's events (crossings plus one noise event a pixel)."""
    end = state.lp + eps * (level - state.lp)
    gap = end - (state.base - leak)
    crossings = np.floor(np.maximum(gap / state.theta_on, -gap / state.theta_off))
    return int(np.maximum(crossings, 0).sum()) + level.size


def canonical(x: np.ndarray, y: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Events in time order, ties by row, column, polarity: the same for every tier."""
    from ...datasets.events.events import EVENT_DTYPE

    order = np.lexsort((p, x, y, t))
    out = np.empty(len(t), EVENT_DTYPE)
    out["t"], out["x"], out["y"], out["p"] = t[order], x[order], y[order], p[order]
    return out
