"""`events.sim_gpu`: the pixel model (pixel_model.py) in torch, all pixels at once, on CUDA;
the same code on the CPU device equals `events.sim` event for event.

Random draws come from the same numpy Generator as `events.sim`, and the lin-log levels are
taken on the host with numpy (libm and CUDA logarithms may differ in the last bit, which
would move a threshold crossing); everything after is +, −, ×, ÷ and floor, which IEEE
arithmetic gives identically on both."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np

from ..gpu import TorchDeviceOption
from .sim import SimBackend, SimOptions


class SimGpuOptions(SimOptions):
    """device: cuda, or cpu (the same code on the CPU, for checking)."""

    device: Literal["cuda", "cpu"] = "cuda"


class SimGpuBackend(TorchDeviceOption, SimBackend):
    """Frames → events with the pixel model in torch."""

    name: ClassVar[str] = "events.sim_gpu"
    tier: ClassVar = "gpu"
    Options: ClassVar = SimGpuOptions
    requires: ClassVar = ("torch", "numba")

    options: SimGpuOptions

    def _run(self, frames: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
        import torch

        from . import pixel_model as pm

        params = self.options.params
        state, intervals = pm.start(frames, times, params, self.options.seed)
        device, f64 = self.options.device, torch.float64

        def on_device(array: np.ndarray) -> Any:
            return torch.as_tensor(array, dtype=f64, device=device)

        lp, base = on_device(state.lp), on_device(state.base)
        theta_on, theta_off = on_device(state.theta_on), on_device(state.theta_off)
        leak_factor, last = on_device(state.leak), on_device(state.last_us)
        height, width = frames.shape[1:]
        xs, ys = torch.meshgrid(torch.arange(width, device=device),
                                torch.arange(height, device=device), indexing="xy")  # fmt: skip
        found: list[Any] = []

        def emit(mask: Any, t: Any, polarity: Any) -> None:
            found.append(torch.stack([xs[mask], ys[mask], t[mask].long(),
                                      polarity[mask].long()]))  # fmt: skip

        for step in intervals:
            t0, t1, noise = step.t0, step.t1, step.noise
            level, eps = on_device(step.level), on_device(step.eps)
            leak = step.dt_s * params.leak_hz * leak_factor * theta_on
            start = lp
            end = start + eps * (level - start)
            lp = end
            ref = base - leak
            slope = end - start
            noisy = on_device(noise.chance) < on_device(step.shot)
            if params.shot_noise_hz > 0:
                t_noise = torch.floor(t0 + on_device(noise.when) * (t1 - t0) + 0.5)
                emit(noisy, t_noise, (on_device(noise.polarity) < 0.5).long())
                last = torch.where(noisy, t_noise, last)
            for sign, theta in ((1, theta_on), (-1, theta_off)):
                moving = slope > 0 if sign > 0 else slope < 0
                active = ~noisy & (sign * (end - ref) >= theta)
                while bool(active.any()):
                    ref = torch.where(active, ref + sign * theta, ref)
                    frac = torch.where(moving, (ref - start) / slope, 0.0)
                    t = torch.floor(t0 + frac.clamp_min(0.0) * (t1 - t0) + 0.5)
                    fired = active & (t - last >= params.refractory_us)
                    emit(fired, t, torch.full_like(t, 1 if sign > 0 else 0))
                    last = torch.where(fired, t, last)
                    active = active & (sign * (end - ref) >= theta)
            base = torch.where(noisy, end, ref)
        events = torch.cat(found, dim=1) if found else torch.zeros(4, 0, dtype=torch.long)
        x, y, t, p = events.cpu().numpy()
        return x, y, t.astype(np.float64), p
