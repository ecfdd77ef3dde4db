"""The pixel model (pixel_model.py) as one fused CUDA kernel: a thread per pixel runs a
frame interval's sub-steps, threshold crossings, refractory test and shot noise, and
appends its events through one atomic counter, so each interval is one launch whatever
the number of crossings (the torch code launches a kernel per crossing round).

Bit-for-bit equal to `events.sim`: the logarithms and the random draws are taken on the
host exactly as there; on the device every product is libdevice's round-to-nearest
multiply (`dmul_rn`, which the compiler never fuses into a multiply-add, while NVVM
contracts a plain `a * b + c` by default), and the remaining operations (+, −, ÷,
floor, ceil, max) are IEEE-exact in the order pixel_model.py writes them. Under numba's
CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) the same kernel runs on the CPU, which is how
the tests check it without a GPU.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import config, cuda

from .dvs_params import LOG_LINEAR_DN, DVSParams
from .pixel_model import leak_rate, start

if getattr(config, "ENABLE_CUDASIM", 0):  # the simulator runs Python: its products are IEEE already

    @cuda.jit(device=True)
    def _mul(a: float, b: float) -> float:
        return a * b

else:  # pragma: no cover - needs a GPU
    from numba.cuda import libdevice

    _mul = libdevice.dmul_rn

THREADS = 256
"""Threads per block."""


@cuda.jit
def _interval(
    frame0,
    frame1,
    level0,
    level1,
    chance,
    when,
    polarity,
    lp,
    base,
    theta_on,
    theta_off,
    fall_per_s,
    last_us,
    scalars,
    xs,
    ys,
    ts,
    ps,
    count,
):
    """One frame interval for every pixel; scalars = (t0, t1, 2π·f_c, 2π·f_c·Δt_s,
    filter_step, shot_noise_hz·Δt_s, refractory_us). Events go to xs/ys/ts/ps at slots
    taken from count[0]; slots past the buffers are counted, not written."""
    height, width = level0.shape
    i = cuda.grid(1)
    if i >= height * width:
        return
    y, x = i // width, i % width
    t0, t1, omega, reach_scale = scalars[0], scalars[1], scalars[2], scalars[3]
    filter_step, shot_scale, refractory = scalars[4], scalars[5], scalars[6]
    room = ts.shape[0]
    dt = t1 - t0
    dt_s = _mul(dt, 1e-6)
    b0 = (frame0[y, x] + LOG_LINEAR_DN) / 275.0
    b1 = (frame1[y, x] + LOG_LINEAR_DN) / 275.0
    m = 1.0
    if omega > 0:
        m = max(1.0, float(math.ceil(_mul(reach_scale, max(b0, b1)) / filter_step)))
    noisy = False
    if shot_scale > 0:
        noisy = chance[y, x] < _mul(shot_scale, 1 - _mul(0.75, b1))
    first = level0[y, x]
    change = level1[y, x] - first
    db = b1 - b0
    h, h_s = dt / m, dt_s / m
    fall = _mul(fall_per_s[y, x], h_s)
    on, off = theta_on[y, x], theta_off[y, x]
    last = last_us[y, x]
    p, ref = lp[y, x], base[y, x]
    for j in range(int(m)):
        after = first + _mul(change, (j + 1) / m)
        if omega > 0:
            before = first + _mul(change, j / m)
            w = _mul(_mul(omega, b0 + _mul(db, (j + 0.5) / m)), h_s)
            q = p + _mul(w / (1 + _mul(0.5, w)), _mul(0.5, before + after) - p)
        else:
            q = after
        if not noisy:
            ta = t0 + _mul(h, float(j))
            end = q + fall
            slope = end - p
            while end - ref >= on:
                ref += on
                frac = (ref - p) / slope if slope > 0 else 0.0
                t = math.floor(ta + _mul(max(frac, 0.0), h) + 0.5)
                if t - last >= refractory:
                    slot = cuda.atomic.add(count, 0, 1)
                    if slot < room:
                        xs[slot], ys[slot], ts[slot], ps[slot] = x, y, t, 1
                    last = t
            while end - ref <= -off:
                ref -= off
                frac = (ref - p) / slope if slope < 0 else 0.0
                t = math.floor(ta + _mul(max(frac, 0.0), h) + 0.5)
                if t - last >= refractory:
                    slot = cuda.atomic.add(count, 0, 1)
                    if slot < room:
                        xs[slot], ys[slot], ts[slot], ps[slot] = x, y, t, 0
                    last = t
            ref -= fall
        p = q
    lp[y, x] = p
    if noisy:
        t = math.floor(t0 + _mul(when[y, x], dt) + 0.5)
        slot = cuda.atomic.add(count, 0, 1)
        if slot < room:
            xs[slot], ys[slot], ts[slot] = x, y, t
            ps[slot] = 1 if polarity[y, x] < 0.5 else 0
        last = t
        ref = p
    base[y, x] = ref
    last_us[y, x] = last


def simulate(
    frames: np.ndarray, times_us: np.ndarray, params: DVSParams, seed: int
) -> tuple[np.ndarray, ...]:
    """(x, y, t, p) of every event of the frames (T, H, W) in DN at times_us (µs), with
    the same draws as `events.sim`; one kernel launch per frame interval (two when the
    events outgrow the buffer: the interval is then run again from its saved state)."""
    state, intervals = start(frames, times_us, params, seed)
    height, width = frames.shape[1:]
    pixels = height * width
    blocks = -(-pixels // THREADS)

    def up(array: np.ndarray) -> Any:
        return cuda.to_device(np.ascontiguousarray(array, dtype=np.float64))

    lp, base, last = up(state.lp), up(state.base), up(state.last_us)
    theta_on, theta_off = up(state.theta_on), up(state.theta_off)
    fall = up(leak_rate(state, params))
    kept = tuple(cuda.device_array_like(a) for a in (lp, base, last))
    frame0 = up(frames[0])
    level0 = None
    count = cuda.to_device(np.zeros(1, np.int64))
    room = max(1024, pixels // 8)
    buffers = _buffers(room)
    chunks: list[tuple[np.ndarray, ...]] = []
    omega = 2 * math.pi * params.cutoff_hz
    for k, step in enumerate(intervals, start=1):
        if level0 is None:
            level0 = up(step.level0)
        frame1, level1 = up(frames[k]), up(step.level1)
        noise = step.noise
        chance, when, polarity = up(noise.chance), up(noise.when), up(noise.polarity)
        scalars = up(
            np.array(
                [
                    step.t0,
                    step.t1,
                    omega,
                    2 * math.pi * params.cutoff_hz * step.dt_s,
                    params.filter_step,
                    params.shot_noise_hz * step.dt_s,
                    params.refractory_us,
                ]
            )
        )
        for saved, live in zip(kept, (lp, base, last), strict=True):
            saved.copy_to_device(live)
        while True:
            count.copy_to_device(np.zeros(1, np.int64))
            _interval[blocks, THREADS](
                frame0,
                frame1,
                level0,
                level1,
                chance,
                when,
                polarity,
                lp,
                base,
                theta_on,
                theta_off,
                fall,
                last,
                scalars,
                *buffers,
                count,
            )
            n = int(count.copy_to_host()[0])
            if n <= room:
                break
            for saved, live in zip(kept, (lp, base, last), strict=True):
                live.copy_to_device(saved)
            room = 2 * n
            buffers = _buffers(room)
        chunks.append(tuple(b[:n].copy_to_host() for b in buffers))
        frame0, level0 = frame1, level1
    if not chunks:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
    x, y, t, p = (np.concatenate(c) for c in zip(*chunks, strict=True))
    return x.astype(np.int64), y.astype(np.int64), t, p.astype(np.int64)


def _buffers(room: int) -> tuple[Any, ...]:
    """Device buffers for `room` events: x, y (int32), t (float64 µs), p (int8)."""
    return (
        cuda.device_array(room, np.int32),
        cuda.device_array(room, np.int32),
        cuda.device_array(room, np.float64),
        cuda.device_array(room, np.int8),
    )
