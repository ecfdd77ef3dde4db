"""The DVS pixel model's parameters and presets (numba-free, so configs validate anywhere)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

LOG_LINEAR_DN = 20.0


class DVSParams(BaseModel):
    """threshold_on/off: contrast thresholds (log units); threshold_sigma: per-pixel
    mismatch; cutoff_hz: photoreceptor bandwidth at full intensity (0: off); leak_hz: leak
    event rate; leak_decades: spread of the per-pixel leak rate; shot_noise_hz: noise events
    per pixel per second in the dark; refractory_us: dead time after an event;
    filter_step: the largest share of the way to its input the photoreceptor filter moves
    in one sub-step (2π·f_c·b·h; smaller is more exact and slower, v2e warns above 0.3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold_on: float = Field(0.2, gt=0)
    threshold_off: float = Field(0.2, gt=0)
    threshold_sigma: float = Field(0.03, ge=0)
    cutoff_hz: float = Field(300.0, ge=0)
    leak_hz: float = Field(0.01, ge=0)
    leak_decades: float = Field(0.1, ge=0)
    shot_noise_hz: float = Field(0.001, ge=0)
    refractory_us: float = Field(500.0, ge=0)
    filter_step: float = Field(0.1, gt=0, le=1)


PRESETS: dict[str, DVSParams] = {
    "clean": DVSParams.model_validate(
        {
            "threshold_sigma": 0.02,
            "cutoff_hz": 0,
            "leak_hz": 0,
            "shot_noise_hz": 0,
            "refractory_us": 0,
        }
    ),
    "noisy": DVSParams.model_validate(
        {"threshold_sigma": 0.05, "cutoff_hz": 30, "leak_hz": 0.1, "shot_noise_hz": 5}
    ),
    "default": DVSParams.model_validate({}),
}
"""clean: an ideal sensor (v2e's `--dvs_params clean`); noisy: v2e's `noisy`; default: the
v2e command line's defaults."""

Preset = Literal["clean", "noisy", "default"]
