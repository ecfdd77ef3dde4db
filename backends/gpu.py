"""Detects CUDA devices without importing any GPU library (torch only once a device exists)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import BackendOptions, Tier, Unavailability

_NVIDIA_PROC = Path("/proc/driver/nvidia/gpus")


def cuda_device_count() -> int:
    """Number of NVIDIA GPUs the kernel driver exposes (0 without a driver).

    `CUDA_VISIBLE_DEVICES=""` hides every device, as it does for CUDA itself.
    """
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "":
        return 0
    return len(list(_NVIDIA_PROC.iterdir())) if _NVIDIA_PROC.is_dir() else 0


def no_cuda_reason() -> str | None:
    """Why a GPU tier cannot run here, or None when a CUDA device is present."""
    if cuda_device_count() == 0:
        return "no CUDA device found (no NVIDIA driver exposes a GPU on this machine)"
    return None


def torch_cuda_unavailability() -> Unavailability | None:
    """Why torch cannot compute on a CUDA GPU here (no device, or a CPU build of torch)."""
    from .base import Unavailability

    if reason := no_cuda_reason():
        return Unavailability("no-gpu", reason)
    import torch

    if not torch.cuda.is_available():
        return Unavailability(
            "missing-package", "the installed torch is a CPU build: install a CUDA build"
        )
    return None


class TorchDeviceOption:
    """Mixin for backends whose options have `device`: 'cuda' is the gpu tier and needs a
    CUDA GPU with a CUDA build of torch; 'cpu' runs the same torch code on the CPU."""

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)  # type: ignore[misc]
        if problem is not None or getattr(options, "device", None) != "cuda":
            return problem
        return torch_cuda_unavailability()

    @classmethod
    def resolved_tier(cls, options: BackendOptions) -> Tier:
        return "gpu" if getattr(options, "device", None) == "cuda" else "simulator"
