"""Detects CUDA devices without importing any GPU library."""

from __future__ import annotations

import os
from pathlib import Path

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
