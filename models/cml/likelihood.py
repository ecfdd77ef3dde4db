"""The links' likelihood, shared by every Bayesian reconstruction: observed attenuation
above the dry baseline (dB) against the path operator's attenuation of a rain field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...datasets.cml.network import wet_antenna_pastorek
from .path_operator import PathOperator


def error_sd_db(observed_db: Any, noise_db: float, relative_noise: float) -> Any:
    """Each datum's error SD (dB), noise_db + relative_noise·observed⁺, for a numpy array
    or torch tensor of observed attenuation (a negative one, below a dry reference, adds
    nothing)."""
    return noise_db + relative_noise * observed_db.clip(0)


@dataclass
class LinkLikelihood:
    """Gaussian errors of standard deviation noise_db + relative_noise · A (dB) on each
    observed sublink; missing sublinks (NaN) contribute nothing. The modelled attenuation
    adds Pastorek wet-antenna attenuation with A_max = wet_antenna_max_db (0: none).

    With `dry_limit_db`, an attenuation of exactly 0 dB (the chain's baseline followed the
    link all step: it called the link dry) is censored, not a measurement: it says only
    that the rain attenuation stayed below the limit, and costs nothing until the field's
    attenuation passes it (then Gaussian in the excess). Without it (None), zeros are
    measurements of no rain.

    observed: (rows, links, sublinks) attenuation in dB, a torch tensor on the operator's
    device; rows are independent maps (or chains of one map). offset_db, when set, is
    added to every modelled attenuation: each sublink's error in the dry level its data
    are measured from (`baseline_offset.BaselineOffsets` draws it). wet_antenna_db, when
    set, is each sublink's own A_max (dB, same shape as observed), in place of
    wet_antenna_max_db (`BaselineOffsets` draws it too, with `antenna_sd_db`).
    """

    operator: PathOperator
    observed: Any
    seen: Any
    sigma_db: Any
    wet_antenna_max_db: float
    censored: Any = None
    dry_limit_db: float = 0.0
    offset_db: Any = None
    wet_antenna_db: Any = None

    @classmethod
    def of(
        cls,
        operator: PathOperator,
        attenuation_db: np.ndarray,
        noise_db: float,
        relative_noise: float,
        wet_antenna_max_db: float,
        dry_limit_db: float | None = None,
    ) -> LinkLikelihood:
        """From a (rows, links, sublinks) array of attenuation in dB, NaN where missing."""
        import torch

        observed = torch.as_tensor(attenuation_db, dtype=operator.dtype, device=operator.device)
        seen = torch.isfinite(observed)
        observed = torch.nan_to_num(observed)
        sigma = error_sd_db(observed, noise_db, relative_noise)
        if dry_limit_db is None:
            return cls(operator, observed, seen, sigma, wet_antenna_max_db)
        censored = seen & (observed == 0)
        return cls(operator, observed, seen, sigma, wet_antenna_max_db, censored, dry_limit_db)

    def potential(self, rain_mm_h: Any) -> Any:
        """Φ = ½ Σ ((A(rain) − observed)/σ)² per row, for rain (rows, ny, nx) in mm/h."""
        import torch

        modelled = self.modelled(rain_mm_h)
        if self.offset_db is not None:
            modelled = modelled + self.offset_db
        residual = torch.where(self.seen, (modelled - self.observed) / self.sigma_db, 0.0)
        if self.censored is not None:
            excess = (modelled - self.dry_limit_db).clamp_min(0.0) / self.sigma_db
            residual = torch.where(self.censored, excess, residual)
        return 0.5 * (residual**2).sum((1, 2))

    def modelled(self, rain_mm_h: Any) -> Any:
        """The attenuation (dB) a field rain_mm_h (rows, ny, nx) gives each sublink before
        any offset: its rain's along the path plus Pastorek wet-antenna attenuation, with
        each sublink's own A_max where wet_antenna_db is set: (rows, links, sublinks)."""
        if self.wet_antenna_db is None:
            return self.operator.attenuation(rain_mm_h, self.wet_antenna_max_db)
        shape = self.wet_antenna_shape(rain_mm_h)
        return self.operator.attenuation(rain_mm_h) + self.wet_antenna_db * shape

    def wet_antenna_shape(self, rain_mm_h: Any) -> Any:
        """Pastorek's wet-antenna attenuation per dB of A_max, 1 − exp(−d R^ζ) of each
        link's path-averaged rain R: (rows, links, 1), the same for both sublinks."""
        averaged = self.operator.path_average(rain_mm_h.clamp_min(0))
        return wet_antenna_pastorek(averaged, 1.0)[..., None]
