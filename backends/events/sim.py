"""`events.sim`: the DVS pixel model (pixel_model.py) on the CPU with numba, from frames or
a synthetic scene."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from pydantic import Field, model_validator

from ..base import BackendOptions, Tier
from .base import EventsCapabilities, EventSimulatorBackend
from .dvs_params import PRESETS, DVSParams, Preset

if TYPE_CHECKING:
    from ...datasets.events.events import Events


class SimOptions(BackendOptions):
    """preset: clean, noisy or default (pixel_model.PRESETS); dvs: fields of DVSParams that
    override the preset; seed: thresholds and noise. What `packets` serves: the frames of
    `video` (a video file, `upsample` − 1 frames interpolated between each pair; width and
    height then come from the video), else a drifting texture of width × height px at
    velocity_px_s (vx, vy). intensity_scale: DN per unit of the frames given (255 for frames
    normalised to [0, 1]; the video and the synthetic scene are in DN already)."""

    preset: Preset = "clean"
    dvs: dict[str, float] = Field(default_factory=dict)
    seed: int = 0
    width: int = Field(346, ge=2, le=4096)
    height: int = Field(260, ge=2, le=4096)
    velocity_px_s: tuple[float, float] = (200.0, 50.0)
    video: str | None = None
    upsample: int = Field(1, ge=1, le=64)
    intensity_scale: float = Field(1.0, gt=0)

    @property
    def params(self) -> DVSParams:
        """The preset with the `dvs` overrides."""
        return DVSParams.model_validate({**PRESETS[self.preset].model_dump(), **self.dvs})

    @model_validator(mode="after")
    def _overrides_are_valid(self) -> SimOptions:
        DVSParams.model_validate({**PRESETS[self.preset].model_dump(), **self.dvs})
        return self


class SimBackend(EventSimulatorBackend):
    """Frames → events with the pixel model, numba on the CPU."""

    name: ClassVar[str] = "events.sim"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[BackendOptions]] = SimOptions
    requires: ClassVar[tuple[str, ...]] = ("numba",)

    options: SimOptions

    @property
    def intensity_scale(self) -> float:
        return self.options.intensity_scale

    @cached_property
    def video(self) -> tuple[np.ndarray, np.ndarray]:
        """The video's frames (DN) and times (µs); errors name the file."""
        from ...datasets.events.video import read_video

        assert self.options.video is not None  # asked only where a video is configured
        return read_video(self.options.video, self.options.upsample)

    @cached_property
    def capabilities(self) -> EventsCapabilities:
        if self.options.video is not None:
            frames, times = self.video
            duration = int(times[-1] - times[0])
            return EventsCapabilities(frames.shape[2], frames.shape[1], False, duration)
        return EventsCapabilities(self.options.width, self.options.height, False, None)

    def _simulate(self, frames: np.ndarray, times_us: np.ndarray) -> Events:
        from ...datasets.events.events import Events
        from .pixel_model import canonical

        x, y, t, p = self._run(frames, times_us)
        return Events(canonical(x, y, t, p), frames.shape[2], frames.shape[1])

    def _run(self, frames: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, ...]:
        from . import pixel_model as pm

        params = self.options.params
        state, intervals = pm.start(frames, times, params, self.options.seed)
        chunks, most = [], 0
        for step in intervals:
            events, most = pm.run_interval(step, state, params, 2 * most)
            chunks.append(events)
        return tuple(np.concatenate(c) for c in zip(*chunks, strict=True))

    def _packets(self, window_us: int, limit_us: int | None) -> Iterator[Events]:
        """The video (for `limit_us`, default all of it) or the drifting-texture scene (for
        `limit_us`, default 1 s), simulated, in windows."""
        from ...datasets.events.synthetic import drifting_texture

        o = self.options
        if o.video is not None:
            frames, times = self.video
            if limit_us is not None:
                keep = max(2, int(np.searchsorted(times, times[0] + limit_us, side="right")))
                frames, times = frames[:keep], times[:keep]
        else:
            frames, times = drifting_texture(
                o.width, o.height, (limit_us or 1_000_000) * 1e-6, o.velocity_px_s, seed=o.seed
            )
        self.validate_frames(frames, times)  # in DN already: intensity_scale is for callers'
        events = self._simulate(np.asarray(frames, np.float64), np.asarray(times, np.float64))
        yield from events.windows(duration_us=window_us)
