"""The standard chain's parameters, apart from numba so that the command line takes its
defaults from here without compiling the chain."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChainParameters:
    """window: rolling window (samples); threshold_db: wet if std above it; n_average_last_dry:
    samples averaged for the wet baseline; waa_max_db, delta_t_min, tau_min: Schleiss model;
    max_gap: longest gap (samples) interpolated; rain_min_mm_h: smaller rates set to 0."""

    window: int = 60
    threshold_db: float = 0.8
    n_average_last_dry: int = 5
    waa_max_db: float = 2.2
    delta_t_min: float = 1.0
    tau_min: float = 15.0
    max_gap: int = 5
    rain_min_mm_h: float = 0.1
