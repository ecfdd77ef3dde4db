"""The links' likelihood, shared by every Bayesian reconstruction: observed attenuation
above the dry baseline (dB) against the path operator's attenuation of a rain field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .path_operator import PathOperator


@dataclass
class LinkLikelihood:
    """Gaussian errors of standard deviation noise_db + relative_noise · A (dB) on each
    observed sublink; missing sublinks (NaN) contribute nothing.

    observed: (rows, links, sublinks) attenuation in dB, a torch tensor on the operator's
    device; rows are independent maps (or chains of one map).
    """

    operator: PathOperator
    observed: Any
    seen: Any
    sigma_db: Any
    wet_antenna: bool

    @classmethod
    def of(
        cls,
        operator: PathOperator,
        attenuation_db: np.ndarray,
        noise_db: float,
        relative_noise: float,
        wet_antenna: bool,
    ) -> LinkLikelihood:
        """From a (rows, links, sublinks) array of attenuation in dB, NaN where missing."""
        import torch

        observed = torch.as_tensor(attenuation_db, dtype=operator.dtype, device=operator.device)
        seen = torch.isfinite(observed)
        observed = torch.nan_to_num(observed)
        return cls(operator, observed, seen, noise_db + relative_noise * observed, wet_antenna)

    def potential(self, rain_mm_h: Any) -> Any:
        """Φ = ½ Σ ((A(rain) − observed)/σ)² per row, for rain (rows, ny, nx) in mm/h."""
        import torch

        modelled = self.operator.attenuation(rain_mm_h, self.wet_antenna)
        residual = torch.where(self.seen, (modelled - self.observed) / self.sigma_db, 0.0)
        return 0.5 * (residual**2).sum((1, 2))
