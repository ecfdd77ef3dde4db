"""The DVS pixel model shared by `events.sim` (numba) and `events.sim_gpu` (torch), and a
per-pixel reference written as plainly as possible.

Between two frames at t0 and t1 (µs) the input is continuous: each pixel's log intensity
L goes linearly from the opening frame's level to the closing frame's, and its brightness
b = (I + 20)/275 linearly in DN. Per pixel:

1. lin-log: L = I·ln(20)/20 for I ≤ 20 DN, else ln(I) (v2e's lin_log);
2. photoreceptor low-pass dlp/dt = 2π·f_c·b(t)·(L(t) − lp) (bright pixels follow faster;
   f_c = 0: lp = L), integrated in sub-steps short enough that lp moves at most
   `filter_step` of the way to its input in one (the trapezoidal rule on the sub-step's
   midpoint bandwidth): the result does not depend on how often frames come;
3. leak: the reference level falls continuously at leak_hz · r · θ_on per second (r
   log-normal per pixel); a pixel's leak starts at a random phase (its reference a uniform
   share of θ_on below lp at the first frame), so leak events come at each pixel's own
   times, not in bursts;
4. crossings: the reference moves in steps of θ_on (up) or θ_off (down) whenever lp has
   passed it; within a sub-step lp is linear, so each crossing is timestamped exactly by
   linear interpolation (ESIM), leak crossings included;
5. refractory: a crossing closer than `refractory_us` to the pixel's last emitted event is
   not emitted (the reference still moves, as in ESIM);
6. shot noise: with probability rate·Δt·(1 − 0.75·b₁) per pixel and frame interval an
   event of random polarity at a uniform time in the interval, and the reference resets
   to lp at the interval's end.
Thresholds are drawn per pixel from N(θ, σ) (≥ 0.01) at the first frame. All randomness
comes from numpy's Generator(seed), drawn the same way for every implementation, and every
step after the logarithms (taken on the host) is +, −, ×, ÷ or floor, so the CPU and GPU
tiers give the same events. Timestamps are µs, rounded to the nearest.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

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


def brightness(frame: np.ndarray) -> np.ndarray:
    """b = (I + 20)/275: the photoreceptor's relative bandwidth and the shot-noise scale."""
    return (np.asarray(frame, np.float64) + LOG_LINEAR_DN) / 275.0


def initial_state(frame: np.ndarray, params: DVSParams, rng: np.random.Generator) -> PixelState:
    """The state at the first frame: thresholds and leak factors drawn, lp = L, and the
    reference at L, less a uniform share of θ_on when the model leaks (its phase)."""
    shape = frame.shape
    level = lin_log(frame)
    on = np.maximum(rng.normal(params.threshold_on, params.threshold_sigma, shape), 0.01)
    off = np.maximum(rng.normal(params.threshold_off, params.threshold_sigma, shape), 0.01)
    leak = np.exp(math.log(10) * params.leak_decades * rng.normal(0.0, 1.0, shape))
    base = level - rng.random(shape) * on if params.leak_hz > 0 else level.copy()
    return PixelState(level.copy(), base, on, off, leak, np.full(shape, -np.inf))


def leak_rate(state: PixelState, params: DVSParams) -> np.ndarray:
    """How fast each pixel's reference falls (log units per second)."""
    return params.leak_hz * state.leak * state.theta_on


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


def interval_noise(
    rng: np.random.Generator, frame: np.ndarray, params: DVSParams, dt_s: float
) -> tuple[IntervalNoise, np.ndarray]:
    """This interval's draws and per-pixel shot-noise probability (no draws, probability 0,
    when the model has no shot noise)."""
    shape = np.shape(frame)
    if params.shot_noise_hz == 0:
        none = np.zeros(shape)
        return IntervalNoise(np.ones(shape), none, none), none
    return IntervalNoise.draw(rng, shape), params.shot_noise_hz * dt_s * (
        1 - 0.75 * brightness(frame)
    )


def substeps(
    bright0: np.ndarray, bright1: np.ndarray, params: DVSParams, dt_s: float
) -> np.ndarray:
    """Sub-steps of each pixel in an interval of dt_s seconds: enough that 2π·f_c·b·h stays
    within `filter_step` (1 everywhere when the filter is off: lp = L is linear already)."""
    if params.cutoff_hz == 0:
        return np.ones(np.shape(bright0))
    reach = 2 * math.pi * params.cutoff_hz * dt_s * np.maximum(bright0, bright1)
    return np.maximum(1.0, np.ceil(reach / params.filter_step))


@dataclass(frozen=True)
class Interval:
    """One frame interval's inputs: (t0, t1] in µs and its length dt_s; the opening and
    closing frames' lin-log levels and brightness; each pixel's sub-steps (float, whole);
    its shot-noise draws and probability."""

    t0: float
    t1: float
    dt_s: float
    level0: np.ndarray
    level1: np.ndarray
    bright0: np.ndarray
    bright1: np.ndarray
    steps: np.ndarray
    noise: IntervalNoise
    shot: np.ndarray


def start(
    frames: np.ndarray, times_us: np.ndarray, params: DVSParams, seed: int
) -> tuple[PixelState, Iterator[Interval]]:
    """The initial state and every interval's inputs, with the random numbers drawn in the
    one order all implementations share (so the CPU, GPU and reference tiers agree)."""
    rng = np.random.default_rng(seed)
    state = initial_state(frames[0], params, rng)

    def intervals() -> Iterator[Interval]:
        level0, bright0 = lin_log(frames[0]), brightness(frames[0])
        for k in range(1, len(frames)):
            t0, t1 = float(times_us[k - 1]), float(times_us[k])
            dt_s = (t1 - t0) * 1e-6
            noise, shot = interval_noise(rng, frames[k], params, dt_s)
            level1, bright1 = lin_log(frames[k]), brightness(frames[k])
            steps = substeps(bright0, bright1, params, dt_s)
            yield Interval(t0, t1, dt_s, level0, level1, bright0, bright1, steps, noise, shot)
            level0, bright0 = level1, bright1

    return state, intervals()


@njit(parallel=True, cache=True)
def _interval(
    level0,
    level1,
    bright0,
    bright1,
    steps,
    omega,
    shot,
    noise_chance,
    noise_when,
    noise_polarity,
    lp,
    base,
    theta_on,
    theta_off,
    fall_per_s,
    last_us,
    t0,
    t1,
    refractory,
    xs,
    ys,
    ts,
    ps,
    counts,
):
    """Advance every pixel over (t0, t1] µs, rows in parallel; row y writes its events to
    row y of xs/ys/ts/ps (rows × room) and its count to counts[y], which may exceed the
    room (the events past it are not written; the caller then restores the state and runs
    the interval again with room for all)."""
    height, width = level0.shape
    room = ts.shape[1]
    dt = t1 - t0
    dt_s = dt * 1e-6
    for y in prange(height):
        n = 0
        for x in range(width):
            m = steps[y, x]
            first, change = level0[y, x], level1[y, x] - level0[y, x]
            b0, db = bright0[y, x], bright1[y, x] - bright0[y, x]
            h, h_s = dt / m, dt_s / m
            fall = fall_per_s[y, x] * h_s
            on, off = theta_on[y, x], theta_off[y, x]
            noisy = noise_chance[y, x] < shot[y, x]
            p, ref = lp[y, x], base[y, x]
            for j in range(int(m)):
                after = first + change * ((j + 1) / m)
                if omega > 0:
                    before = first + change * (j / m)
                    w = omega * (b0 + db * ((j + 0.5) / m)) * h_s
                    q = p + w / (1 + 0.5 * w) * (0.5 * (before + after) - p)
                else:
                    q = after
                if not noisy:
                    ta = t0 + h * j
                    end = q + fall
                    slope = end - p
                    while end - ref >= on:
                        ref += on
                        frac = (ref - p) / slope if slope > 0 else 0.0
                        t = np.floor(ta + max(frac, 0.0) * h + 0.5)
                        if t - last_us[y, x] >= refractory:
                            if n < room:
                                xs[y, n], ys[y, n], ts[y, n], ps[y, n] = x, y, t, 1
                            n += 1
                            last_us[y, x] = t
                    while end - ref <= -off:
                        ref -= off
                        frac = (ref - p) / slope if slope < 0 else 0.0
                        t = np.floor(ta + max(frac, 0.0) * h + 0.5)
                        if t - last_us[y, x] >= refractory:
                            if n < room:
                                xs[y, n], ys[y, n], ts[y, n], ps[y, n] = x, y, t, 0
                            n += 1
                            last_us[y, x] = t
                    ref -= fall
                p = q
            lp[y, x] = p
            if noisy:
                t = np.floor(t0 + noise_when[y, x] * dt + 0.5)
                if n < room:
                    xs[y, n], ys[y, n], ts[y, n] = x, y, t
                    ps[y, n] = 1 if noise_polarity[y, x] < 0.5 else 0
                n += 1
                last_us[y, x] = t
                ref = p
            base[y, x] = ref
        counts[y] = n


def run_interval(
    step: Interval, state: PixelState, params: DVSParams, room: int
) -> tuple[tuple[np.ndarray, ...], int]:
    """One interval on the CPU (numba, rows in parallel): the events as (x, y, t, p)
    arrays and the most events a row had; the state advanced. `room` (events a row) sizes
    the buffers; if a row has more, the interval is run again with room for it."""
    fall = leak_rate(state, params)
    omega = 2 * math.pi * params.cutoff_hz
    kept = state.lp.copy(), state.base.copy(), state.last_us.copy()
    rows = step.level0.shape[0]
    counts = np.zeros(rows, np.int64)
    room = max(room, 16)
    while True:
        xs, ys = np.empty((rows, room), np.int64), np.empty((rows, room), np.int64)
        ts, ps = np.empty((rows, room), np.float64), np.empty((rows, room), np.int64)
        noise = step.noise
        _interval(
            step.level0,
            step.level1,
            step.bright0,
            step.bright1,
            step.steps,
            omega,
            step.shot,
            noise.chance,
            noise.when,
            noise.polarity,
            state.lp,
            state.base,
            state.theta_on,
            state.theta_off,
            fall,
            state.last_us,
            step.t0,
            step.t1,
            params.refractory_us,
            xs,
            ys,
            ts,
            ps,
            counts,
        )
        most = int(counts.max(initial=0))
        if most <= room:
            written = np.arange(room) < counts[:, None]
            return (xs[written], ys[written], ts[written], ps[written]), most
        state.lp[...], state.base[...], state.last_us[...] = kept
        room = most


def reference_interval(
    step: Interval, state: PixelState, params: DVSParams
) -> list[tuple[int, int, float, int]]:
    """The same interval as `_interval`, pixel by pixel in plain Python (the benchmark's
    anchor and the tests' reference)."""
    events: list[tuple[int, int, float, int]] = []
    t0, t1 = step.t0, step.t1
    dt = t1 - t0
    omega = 2 * math.pi * params.cutoff_hz
    fall_per_s = leak_rate(state, params)
    height, width = step.level0.shape
    for y in range(height):
        for x in range(width):
            m = float(step.steps[y, x])
            first = float(step.level0[y, x])
            change = float(step.level1[y, x]) - first
            b0 = float(step.bright0[y, x])
            db = float(step.bright1[y, x]) - b0
            h, h_s = dt / m, step.dt_s / m
            fall = float(fall_per_s[y, x]) * h_s
            noisy = step.noise.chance[y, x] < step.shot[y, x]
            p, ref = float(state.lp[y, x]), float(state.base[y, x])
            for j in range(int(m)):
                after = first + change * ((j + 1) / m)
                if omega > 0:
                    before = first + change * (j / m)
                    w = omega * (b0 + db * ((j + 0.5) / m)) * h_s
                    q = p + w / (1 + 0.5 * w) * (0.5 * (before + after) - p)
                else:
                    q = after
                if not noisy:
                    end = q + fall
                    slope = end - p
                    for sign, theta in (
                        (1, float(state.theta_on[y, x])),
                        (-1, float(state.theta_off[y, x])),
                    ):
                        while sign * (end - ref) >= theta:
                            ref += sign * theta
                            moving = slope > 0 if sign > 0 else slope < 0
                            frac = (ref - p) / slope if moving else 0.0
                            t = math.floor(t0 + h * j + max(frac, 0.0) * h + 0.5)
                            if t - state.last_us[y, x] >= params.refractory_us:
                                events.append((x, y, t, 1 if sign > 0 else 0))
                                state.last_us[y, x] = t
                    ref -= fall
                p = q
            state.lp[y, x] = p
            if noisy:
                t = math.floor(t0 + float(step.noise.when[y, x]) * dt + 0.5)
                events.append((x, y, t, 1 if step.noise.polarity[y, x] < 0.5 else 0))
                state.last_us[y, x], ref = t, p
            state.base[y, x] = ref
    return events


def canonical(x: np.ndarray, y: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Events in time order, ties by row, column, polarity: the same for every tier."""
    from ...datasets.events.events import EVENT_DTYPE

    order = np.lexsort((p, x, y, t))
    out = np.empty(len(t), EVENT_DTYPE)
    out["t"], out["x"], out["y"], out["p"] = t[order], x[order], y[order], p[order]
    return out
