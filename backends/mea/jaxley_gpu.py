"""`mea.jaxley_gpu`: `mea.jaxley` on JAX's CUDA backend (device: gpu), or the same code on
the CPU device (device: cpu) for checking; jaxley picks its GPU solver by itself."""

from __future__ import annotations

from typing import ClassVar, Literal

from ..base import BackendOptions, Tier, Unavailability
from ..gpu import no_cuda_reason
from .jaxley_sim import JaxleyBackend, JaxleyOptions


class JaxleyGpuOptions(JaxleyOptions):
    """device: gpu, or cpu (the same code on the CPU); batch: parameter sets per compiled
    call (a GPU wants thousands)."""

    device: Literal["gpu", "cpu"] = "gpu"
    batch: int = 1024


class JaxleyGpuBackend(JaxleyBackend):
    name: ClassVar[str] = "mea.jaxley_gpu"
    tier: ClassVar[Tier] = "gpu"
    Options: ClassVar[type[BackendOptions]] = JaxleyGpuOptions

    options: JaxleyGpuOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or getattr(options, "device", "gpu") != "gpu":
            return problem
        if reason := no_cuda_reason():
            return Unavailability("no-gpu", reason)
        import jax

        try:
            jax.devices("gpu")
        except RuntimeError:
            return Unavailability(
                "missing-package",
                "the installed jax has no CUDA backend: pip install -U 'jax[cuda13]'",
            )
        return None

    @classmethod
    def resolved_tier(cls, options: BackendOptions) -> Tier:
        return "gpu" if getattr(options, "device", "gpu") == "gpu" else "simulator"

    def _platform(self) -> str:
        return self.options.device
