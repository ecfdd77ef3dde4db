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

With `antenna_sd_db` each sublink's wet-antenna A_max is latent too (a, dB), in place of
the one A_max every link shares:

    observed[t] = A(rain[t]) + a·s[t] + b + ε[t],   a ~ N(A_max, antenna_sd²), a ≥ 0,

where s[t] = 1 − exp(−d R̄[t]^ζ) is Pastorek's wet-antenna shape of the link's
path-averaged rain (0 on dry maps). Given the fields, (b, a) is a truncated bivariate
Gaussian; `draw` takes one Gibbs sweep through it, b given a and then a given b (a
normal truncated at 0), which leaves their joint conditional invariant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .likelihood import LinkLikelihood, error_sd_db
from .likelihood_defaults import check_latent_offsets


@dataclass
class BaselineOffsets:
    """The offsets' conditional for rows ordered (map, chain), `chains` fastest: each
    chain has its own offsets, shared by its maps. dry_weight and dry_sum: (links,
    sublinks) Σ 1/σ² and Σ observed/σ² over the maps held dry (field zero) that the
    offsets also explain; sd_db: the prior's standard deviation (dB); antenna_sd_db: the
    prior standard deviation of each sublink's wet-antenna A_max about the likelihood's
    wet_antenna_max_db (dB; None: A_max is not latent)."""

    sd_db: float
    chains: int
    dry_weight: Any
    dry_sum: Any
    antenna_sd_db: float | None = None

    @classmethod
    def of(
        cls,
        likelihood: LinkLikelihood,
        sd_db: float,
        chains: int,
        dry_observed_db: np.ndarray,
        noise_db: float,
        relative_noise: float,
        antenna_sd_db: float | None = None,
    ) -> BaselineOffsets:
        """dry_observed_db: (maps, links, sublinks) data of the maps with no rain (NaN
        where missing); σ as the likelihood's (noise_db + relative_noise·observed⁺). With
        antenna_sd_db, the likelihood's wet_antenna_db starts at its wet_antenna_max_db."""
        import torch

        check_latent_offsets(sd_db, None, antenna_sd_db, likelihood.wet_antenna_max_db)
        if antenna_sd_db is not None:
            likelihood.wet_antenna_db = torch.full_like(
                likelihood.observed, likelihood.wet_antenna_max_db
            )
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
            antenna_sd_db,
        )

    def draw(self, likelihood: LinkLikelihood, rain_mm_h: Any, generator: Any) -> tuple[Any, Any]:
        """Offsets and, with antenna_sd_db, wet-antenna A_max (each (rows, links, sublinks),
        dB; A_max None without) drawn from their conditional given the fields rain_mm_h
        (rows, ny, nx) and, for the offsets, the likelihood's current A_max: one per chain
        and sublink, repeated over its maps."""
        import torch

        with torch.no_grad():
            weight = torch.where(likelihood.seen, likelihood.sigma_db**-2, 0.0)
            maps = weight.shape[0] // self.chains
            if self.antenna_sd_db is None:
                residual = likelihood.observed - likelihood.modelled(rain_mm_h)
                return self._offsets(weight, residual, generator).repeat(maps, 1, 1), None
            rain_db = likelihood.operator.attenuation(rain_mm_h)
            shape = likelihood.wet_antenna_shape(rain_mm_h).expand_as(rain_db)
            antenna = likelihood.wet_antenna_db
            residual = likelihood.observed - rain_db - antenna * shape
            offsets = self._offsets(weight, residual, generator).repeat(maps, 1, 1)
            residual = likelihood.observed - rain_db - offsets
            precision = self.antenna_sd_db**-2 + self._per_chain(weight * shape**2)
            prior_sum = likelihood.wet_antenna_max_db * self.antenna_sd_db**-2
            mean = (prior_sum + self._per_chain(weight * shape * residual)) / precision
            return offsets, _above_zero(mean, precision.rsqrt(), generator).repeat(maps, 1, 1)

    def _per_chain(self, values: Any) -> Any:
        """Sum over each chain's maps of (rows, links, sublinks): (chains, links, sublinks)."""
        return values.reshape(-1, self.chains, *values.shape[1:]).sum(0)

    def _offsets(self, weight: Any, residual: Any, generator: Any) -> Any:
        """Offsets (chains, links, sublinks) from their Gaussian conditional, given the data
        less everything else modelled (residual) and the data's weights 1/σ²."""
        import torch

        precision = self.sd_db**-2 + self.dry_weight + self._per_chain(weight)
        mean = (self.dry_sum + self._per_chain(residual * weight)) / precision
        noise = torch.randn(mean.shape, generator=generator, dtype=mean.dtype, device=mean.device)
        return mean + noise / precision.sqrt()


def _above_zero(mean: Any, sd: Any, generator: Any) -> Any:
    """Draws of normals (mean, sd) truncated to [0, ∞), by the inverse CDF in float64."""
    import torch

    mu, sigma = mean.double(), sd.double()
    below = torch.special.ndtr(-mu / sigma)  # P(x < 0)
    uniform = torch.rand(mu.shape, generator=generator, dtype=mu.dtype, device=mu.device)
    u = (below + (1 - below) * uniform).clamp(1e-300, 1 - 1e-16)
    return (mu + sigma * torch.special.ndtri(u)).clamp_min(0).to(mean.dtype)
