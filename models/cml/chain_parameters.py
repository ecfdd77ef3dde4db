"""The standard chain's parameters, apart from numba so that the command line takes its
defaults from here without compiling the chain."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import SubstratesError


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

    def __post_init__(self) -> None:
        positive = {
            "window": self.window,
            "threshold_db": self.threshold_db,
            "n_average_last_dry": self.n_average_last_dry,
            "delta_t_min": self.delta_t_min,
            "tau_min": self.tau_min,
        }
        not_negative = {
            "waa_max_db": self.waa_max_db,
            "max_gap": self.max_gap,
            "rain_min_mm_h": self.rain_min_mm_h,
        }
        wrong = [f"{k} must be positive, got {v}" for k, v in positive.items() if not v > 0]
        wrong += [
            f"{k} must not be negative, got {v}" for k, v in not_negative.items() if not v >= 0
        ]
        if wrong:
            raise SubstratesError("chain parameters: " + "; ".join(wrong))
