"""The frame-only baseline's motions (models/events/frame_flow.py): on one texture
translating at a known velocity, OpenCV's dense flow finds it; on transparent layers it
returns two motions, transmission first, deterministically."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.events.synthetic import drifting_texture
from substrates.models.events.frame_flow import frame_motions
from substrates.models.events.scenes import ReflectionScene


@pytest.mark.parametrize("velocity", [(300.0, 0.0), (-120.0, 80.0)])
def test_one_translating_texture_s_motion_is_found(velocity) -> None:
    frames, times = drifting_texture(128, 96, 0.05, velocity_px_s=velocity, seed=3)
    found = frame_motions(frames, times)
    assert np.hypot(*(found[0] - velocity)) < 3.0  # px/s, of speeds of 144–300 px/s


def test_two_layers_give_two_motions_the_same_each_time() -> None:
    rendered = ReflectionScene.random(2).render()
    first = frame_motions(rendered.frames, rendered.times)
    assert first.shape == (2, 2) and np.all(np.isfinite(first))
    assert np.array_equal(first, frame_motions(rendered.frames, rendered.times))


def test_one_frame_has_no_flow() -> None:
    frames, times = drifting_texture(32, 24, 0.05, seed=1)
    with pytest.raises(ValueError, match="two frames"):
        frame_motions(frames[:1], times[:1])
