"""The link likelihood's defaults, one set for every Bayesian reconstruction (the
random-field prior's `BayesianSettings` and the diffusion prior's `DiffusionSettings`),
apart from torch so that the command line reads them without importing a sampler.

Chosen on the validation day (20 May 2018) and used in the held-out evaluation
(docs/substrates/cml.md)."""

from __future__ import annotations

NOISE_DB = 0.3
"""Standard deviation of a sublink's attenuation error independent of its size (dB)."""
RELATIVE_NOISE = 0.1
"""Standard deviation of a sublink's attenuation error per dB of observed attenuation."""
WET_ANTENNA_MAX_DB = 14.0
"""A_max of the Pastorek wet-antenna attenuation added to a field's rain attenuation (dB;
Pastorek et al. 2021's)."""
DRY_LIMIT_DB = 3.0
"""A sublink the chain called dry for a whole map reads as attenuation below this (dB)."""


def check_latent_offsets(
    offset_sd_db: float | None,
    dry_limit_db: float | None,
    antenna_sd_db: float | None = None,
    wet_antenna_max_db: float = WET_ANTENNA_MAX_DB,
) -> None:
    """Refuse settings where latent dry-reference offsets (`baseline_offset`) meet censored
    chain zeros, or have a prior standard deviation that is not positive (dB); and a latent
    wet-antenna A_max (antenna_sd_db) without the offsets, with a standard deviation that
    is not positive, or about a prior A_max of 0 dB."""
    if antenna_sd_db is not None:
        if offset_sd_db is None:
            raise ValueError("a latent wet-antenna A_max is drawn with the latent offsets")
        if not antenna_sd_db > 0:
            raise ValueError(f"antenna_sd_db must be positive, got {antenna_sd_db}")
        if not wet_antenna_max_db > 0:
            raise ValueError("a latent wet-antenna A_max needs wet_antenna_max_db above 0")
    if offset_sd_db is None:
        return
    if dry_limit_db is not None:
        raise ValueError("latent offsets read no chain zeros: dry_limit_db must be None")
    if not offset_sd_db > 0:
        raise ValueError(f"offset_sd_db must be positive, got {offset_sd_db}")
