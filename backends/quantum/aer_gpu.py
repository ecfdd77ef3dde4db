"""Qiskit Aer on an NVIDIA GPU (qiskit-aer-gpu, optionally through cuStateVec)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..base import BackendOptions, Tier, Unavailability
from ..gpu import no_cuda_reason
from .aer import AerBackend, AerOptions


class AerGpuOptions(AerOptions):
    """Options of `quantum.aer_gpu`: those of `quantum.aer` restricted to GPU methods, plus

    custatevec: use NVIDIA cuStateVec kernels.
    batched_shots: run shots of noisy circuits as a batch on the GPU.
    """

    method: Literal["statevector", "density_matrix"] = "statevector"
    custatevec: bool = True
    batched_shots: bool = False


class AerGpuBackend(AerBackend):
    """The Aer code path with `device="GPU"`; refuses to start without a CUDA device."""

    name: ClassVar[str] = "quantum.aer_gpu"
    tier: ClassVar[Tier] = "gpu"
    Options: ClassVar[type[BackendOptions]] = AerGpuOptions
    aer_device: ClassVar[str] = "GPU"

    options: AerGpuOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None or cls.aer_device != "GPU":  # "CPU": tests run this path there
            return problem
        if reason := no_cuda_reason():
            return Unavailability("no-gpu", reason)
        from qiskit_aer import AerSimulator

        if "GPU" not in AerSimulator().available_devices():
            return Unavailability(
                "missing-package",
                "installed qiskit-aer is a CPU build: pip install 'substrates[gpu]' "
                "(qiskit-aer-gpu replaces it)",
            )
        return None

    def _device_memory_bytes(self) -> int:
        if self.aer_device != "GPU":
            return super()._device_memory_bytes()
        import subprocess

        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return min(int(line) for line in out.split()) * 1024**2

    def _backend_options(self) -> dict[str, Any]:
        return {
            **super()._backend_options(),
            "cuStateVec_enable": self.options.custatevec,
            "batched_shots_gpu": self.options.batched_shots,
        }
