"""`cml.sim` with the rain fields and path integrals computed by torch on a CUDA device."""

from __future__ import annotations

from typing import ClassVar

from ..base import BackendOptions, Unavailability
from ..gpu import no_cuda_reason
from .sim import SimBackend


class SimGpuBackend(SimBackend):
    """The simulator's code path with torch on 'cuda'; refuses to start without a GPU."""

    name: ClassVar[str] = "cml.sim_gpu"
    tier: ClassVar = "gpu"
    requires: ClassVar = ("xarray", "torch")
    torch_device: ClassVar[str | None] = "cuda"

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or cls.torch_device != "cuda":  # "cpu": tests run this path
            return problem
        if reason := no_cuda_reason():
            return Unavailability("no-gpu", reason)
        import torch

        if not torch.cuda.is_available():
            return Unavailability(
                "missing-package", "the installed torch is a CPU build: install a CUDA build"
            )
        return None
