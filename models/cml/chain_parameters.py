"""The standard chain's parameters, apart from numba so that the command line takes its
defaults from here without compiling the chain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...errors import SubstratesError

WetDry = Literal["std", "nearby"]
"""How the chain calls a link wet: 'std', the rolling standard deviation of its own trsl
above threshold_db (pycomlink's example); 'nearby', RAINLINK's classification from the
links around it (nearby.py)."""


@dataclass(frozen=True)
class ChainParameters:
    """window: rolling window (samples); threshold_db: wet if std above it; n_average_last_dry:
    samples averaged for the wet baseline; waa_max_db, delta_t_min, tau_min: Schleiss model;
    max_gap: longest gap (samples) interpolated; rain_min_mm_h: smaller rates set to 0;
    wet_dry: the classification (WetDry; with 'nearby', a link or interval it cannot decide
    falls back to 'std'); nearby_radius_km: the neighbourhood 'nearby' looks at."""

    window: int = 60
    threshold_db: float = 0.8
    n_average_last_dry: int = 5
    waa_max_db: float = 2.2
    delta_t_min: float = 1.0
    tau_min: float = 15.0
    max_gap: int = 5
    rain_min_mm_h: float = 0.1
    wet_dry: WetDry = "std"
    nearby_radius_km: float = 15.0

    @property
    def history(self) -> np.timedelta64:
        """Data the chain needs before the first time it reports: its rolling window and
        baseline (2 h), or RAINLINK's 24-hour dry reference with 'nearby'."""
        return np.timedelta64(24 if self.wet_dry == "nearby" else 2, "h")

    def __post_init__(self) -> None:
        positive = {
            "window": self.window,
            "threshold_db": self.threshold_db,
            "n_average_last_dry": self.n_average_last_dry,
            "delta_t_min": self.delta_t_min,
            "tau_min": self.tau_min,
            "nearby_radius_km": self.nearby_radius_km,
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
        if self.wet_dry not in ("std", "nearby"):
            wrong.append(f"wet_dry must be 'std' or 'nearby', got {self.wet_dry!r}")
        if wrong:
            raise SubstratesError("chain parameters: " + "; ".join(wrong))
