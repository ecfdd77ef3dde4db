"""Each link's dry level as a latent variable of the Bayesian reconstruction (#46 item 2).

The links' data are their attenuation above a dry reference (`cml_inputs.link_inputs`:
the median trsl while the chain called the link dry), with no wet/dry decision taken out
of them: where the field is dry the model predicts no rain attenuation, so the field's
dry cells are the wet/dry state. The reference is off by an unknown amount per sublink,
its offset b (dB), constant over the maps sampled together:

    observed[t] = A(rain[t]) + WAA + b + ε[t],   b ~ N(0, sd²),   ε[t] ~ N(0, σ[t]²)

Given the fields, b is Gaussian (conjugate): precision P = 1/sd² + Σ_t 1/σ[t]² and mean
Σ_t (observed[t] − A(rain[t]))/σ[t]² / P over the sublink's observed maps — the maps
sampled and the maps with no rain (the field is zero there, so they count with
A = 0). `draw` samples it, the Gibbs half beside HMC's update of the fields (`hmc`'s
`refresh`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .likelihood import LinkLikelihood, error_sd_db


@dataclass
class BaselineOffsets:
    """The offsets' conditional for rows ordered (map, chain), `chains` fastest: each
    chain has its own offsets, shared by its maps. dry_weight and dry_sum: (links,
    sublinks) Σ 1/σ² and Σ observed/σ² over the maps held dry (field zero) that the
    offsets also explain; sd_db: the prior's standard deviation (dB)."""

    sd_db: float
    chains: int
    dry_weight: Any
    dry_sum: Any

    @classmethod
    def of(
        cls,
        likelihood: LinkLikelihood,
        sd_db: float,
        chains: int,
        dry_observed_db: np.ndarray,
        noise_db: float,
        relative_noise: float,
    ) -> BaselineOffsets:
        """dry_observed_db: (maps, links, sublinks) data of the maps with no rain (NaN
        where missing); σ as the likelihood's (noise_db + relative_noise·observed⁺)."""
        import torch

        if not sd_db > 0:
            raise ValueError(f"the offsets' prior standard deviation must be positive: {sd_db}")
        if likelihood.censored is not None:
            raise ValueError("latent offsets need Gaussian errors on every datum: no censoring")
        seen = np.isfinite(dry_observed_db)
        observed = np.nan_to_num(dry_observed_db)
        weight = np.where(seen, error_sd_db(observed, noise_db, relative_noise) ** -2.0, 0.0)
        put = {"dtype": likelihood.observed.dtype, "device": likelihood.observed.device}
        return cls(
            sd_db,
            chains,
            torch.as_tensor(weight.sum(0), **put),
            torch.as_tensor((weight * observed).sum(0), **put),
        )

    def draw(self, likelihood: LinkLikelihood, rain_mm_h: Any, generator: Any) -> Any:
        """Offsets (rows, links, sublinks) drawn from their conditional given the fields
        rain_mm_h (rows, ny, nx): one per chain and sublink, repeated over its maps."""
        import torch

        with torch.no_grad():
            modelled = likelihood.operator.attenuation(rain_mm_h, likelihood.wet_antenna_max_db)
            weight = torch.where(likelihood.seen, likelihood.sigma_db**-2, 0.0)
            residual = (likelihood.observed - modelled) * weight
            per_chain = (-1, self.chains, *weight.shape[1:])
            precision = self.sd_db**-2 + self.dry_weight + weight.reshape(per_chain).sum(0)
            mean = (self.dry_sum + residual.reshape(per_chain).sum(0)) / precision
            noise = torch.randn(
                mean.shape, generator=generator, dtype=mean.dtype, device=mean.device
            )
            offsets = mean + noise / precision.sqrt()
            maps = weight.shape[0] // self.chains
            return offsets.repeat(maps, 1, 1)
