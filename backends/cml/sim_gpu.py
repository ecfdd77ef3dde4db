"""`cml.sim` with the rain fields and path integrals computed by torch on a CUDA device."""

from __future__ import annotations

from typing import ClassVar

from ..base import BackendOptions, Tier, Unavailability
from ..gpu import torch_cuda_unavailability
from .sim import SimBackend


class SimGpuBackend(SimBackend):
    """The simulator's code path with torch on 'cuda'; refuses to start without a GPU."""

    name: ClassVar[str] = "cml.sim_gpu"
    tier: ClassVar[Tier] = "gpu"
    requires: ClassVar[tuple[str, ...]] = ("xarray", "torch")
    torch_device: ClassVar[str | None] = "cuda"

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or cls.torch_device != "cuda":  # "cpu": tests run this path
            return problem
        return torch_cuda_unavailability()
