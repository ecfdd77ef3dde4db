"""`events.sim_gpu`: the pixel model (pixel_model.py) on CUDA — by default as one fused
kernel a frame interval (pixel_cuda.py, numba.cuda), else (`kernel: torch`) in torch, all
pixels at once; both equal `events.sim` event for event. The CPU device runs the torch
code, and the fused kernel too where numba's CUDA simulator is on (the tests).

Random draws come from the same numpy Generator as `events.sim`, and the lin-log levels are
taken on the host with numpy (libm and CUDA logarithms may differ in the last bit, which
would move a threshold crossing); everything after is +, −, ×, ÷ and floor, which IEEE
arithmetic gives identically on both."""

from __future__ import annotations

import math
import os
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import model_validator

from ..base import BackendOptions, Tier, Unavailability
from ..gpu import TorchDeviceOption
from .sim import SimBackend, SimOptions


class SimGpuOptions(SimOptions):
    """device: cuda, or cpu (the same code on the CPU, for checking); kernel: fused (one
    numba.cuda launch a frame interval) or torch (a launch per operation); default fused
    on cuda, torch on cpu."""

    device: Literal["cuda", "cpu"] = "cuda"
    kernel: Literal["fused", "torch"] | None = None

    @property
    def fused(self) -> bool:
        """Whether the fused kernel runs."""
        return self.kernel == "fused" or (self.kernel is None and self.device == "cuda")

    @model_validator(mode="after")
    def _fused_needs_cuda(self) -> SimGpuOptions:
        simulator = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
        if self.fused and self.device == "cpu" and not simulator:
            raise ValueError(
                "kernel: fused runs on CUDA (on the CPU only under numba's CUDA "
                "simulator, NUMBA_ENABLE_CUDASIM=1); use kernel: torch"
            )
        return self


class SimGpuBackend(TorchDeviceOption, SimBackend):
    """Frames → events with the pixel model in torch."""

    name: ClassVar[str] = "events.sim_gpu"
    tier: ClassVar[Tier] = "gpu"
    Options: ClassVar[type[BackendOptions]] = SimGpuOptions
    requires: ClassVar[tuple[str, ...]] = ("torch", "numba")

    options: SimGpuOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or not getattr(options, "fused", False):
            return problem
        from numba import config, cuda

        if not getattr(config, "ENABLE_CUDASIM", 0) and not cuda.is_available():
            return Unavailability(
                "missing-package",
                "numba cannot use the GPU (no CUDA "
                "driver or NVVM for numba.cuda): install numba-cuda, or "
                "use kernel: torch",
            )
        return None

    def _run(self, frames: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
        if self.options.fused:
            from . import pixel_cuda

            return pixel_cuda.simulate(frames, times, self.options.params, self.options.seed)
        return self._run_torch(frames, times)

    def _run_torch(self, frames: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
        import torch

        from . import pixel_model as pm

        params = self.options.params
        state, intervals = pm.start(frames, times, params, self.options.seed)
        device, f64 = self.options.device, torch.float64
        omega = 2 * math.pi * params.cutoff_hz

        def on_device(array: np.ndarray) -> Any:
            return torch.as_tensor(array, dtype=f64, device=device)

        lp, base = on_device(state.lp), on_device(state.base)
        theta_on, theta_off = on_device(state.theta_on), on_device(state.theta_off)
        fall_per_s, last = on_device(pm.leak_rate(state, params)), on_device(state.last_us)
        height, width = frames.shape[1:]
        xs, ys = torch.meshgrid(
            torch.arange(width, device=device), torch.arange(height, device=device), indexing="xy"
        )
        found: list[Any] = []

        def emit(mask: Any, t: Any, polarity: Any) -> None:
            found.append(torch.stack([xs[mask], ys[mask], t[mask].long(), polarity[mask].long()]))

        for step in intervals:
            t0, t1, noise = step.t0, step.t1, step.noise
            dt = t1 - t0
            first, closing = on_device(step.level0), on_device(step.level1)
            change = closing - first
            b0 = on_device(step.bright0)
            db = on_device(step.bright1) - b0
            m = on_device(step.steps)
            h, h_s = dt / m, step.dt_s / m
            fall = fall_per_s * h_s
            noisy = on_device(noise.chance) < on_device(step.shot)
            p, ref = lp, base
            for j in range(int(step.steps.max())):
                live = j < m
                after = first + change * ((j + 1) / m)
                if omega > 0:
                    before = first + change * (j / m)
                    w = omega * (b0 + db * ((j + 0.5) / m)) * h_s
                    q = p + w / (1 + 0.5 * w) * (0.5 * (before + after) - p)
                else:
                    q = after
                q = torch.where(live, q, p)
                crossing = live & ~noisy
                ta = t0 + h * j
                end = q + fall
                slope = end - p
                for sign, theta in ((1, theta_on), (-1, theta_off)):
                    moving = slope > 0 if sign > 0 else slope < 0
                    active = crossing & (sign * (end - ref) >= theta)
                    while bool(active.any()):
                        ref = torch.where(active, ref + sign * theta, ref)
                        frac = torch.where(moving, (ref - p) / slope, 0.0)
                        t = torch.floor(ta + frac.clamp_min(0.0) * h + 0.5)
                        fired = active & (t - last >= params.refractory_us)
                        emit(fired, t, torch.full_like(t, 1 if sign > 0 else 0))
                        last = torch.where(fired, t, last)
                        active = active & (sign * (end - ref) >= theta)
                ref = torch.where(crossing, ref - fall, ref)
                p = q
            lp = p
            if params.shot_noise_hz > 0:
                t_noise = torch.floor(t0 + on_device(noise.when) * dt + 0.5)
                emit(noisy, t_noise, (on_device(noise.polarity) < 0.5).long())
                last = torch.where(noisy, t_noise, last)
            base = torch.where(noisy, p, ref)
        events = torch.cat(found, dim=1) if found else torch.zeros(4, 0, dtype=torch.long)
        x, y, t, p_ = events.cpu().numpy()
        return x, y, t.astype(np.float64), p_
