"""The event-layers method end to end on one held-out scene: simulate it on the configured
simulator, decouple the two layers' motions from the events alone, remove the reflection
with the transmission's estimated motion, and score everything against the ground truth."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from substrates.backends.events.base import EventSimulatorBackend

from .cmax import TwoMotions, two_motions
from .removal import psnr, remove_reflection
from .scenes import ReflectionScene, RenderedScene

CLEAR_RATIO = 3.0
"""An event is 'clear' when its layer changed the log intensity ≥ 3× more than the other."""


def matched(found: TwoMotions, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(velocities, layer) renumbered so that 0 is the motion nearer the transmission's."""
    straight = np.hypot(*(found.velocities - truth).T).sum()
    swapped = np.hypot(*(found.velocities[::-1] - truth).T).sum()
    if swapped < straight:
        return found.velocities[::-1], 1 - found.layer
    return found.velocities, found.layer


def clear_events(rendered: RenderedScene, events: np.ndarray) -> np.ndarray:
    """Which events one layer caused clearly (see CLEAR_RATIO)."""
    return rendered.at_events(rendered.dominance, events) >= CLEAR_RATIO


def evaluate_scene(scene: ReflectionScene, simulator: EventSimulatorBackend
                   ) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """(metrics row, arrays for plots) of one scene."""
    rendered = scene.render()
    events = simulator.simulate(rendered.frames, rendered.times).array
    truth = np.array([scene.transmission_velocity, scene.reflection_velocity])
    found = two_motions(events, scene.width, scene.height)
    velocities, layer = matched(found, truth)
    labels, clear = rendered.event_labels(events), clear_events(rendered, events)
    error = np.hypot(*(velocities - truth).T)
    # the middle frame is the reference: frames shift by at most |v_T|·duration/2 to meet it,
    # and the scores leave out a border that wide
    middle = len(rendered.frames) // 2
    margin = math.ceil(np.hypot(*truth[0]) * scene.duration_s / 2) + 1
    recovered = remove_reflection(rendered.frames, rendered.times, velocities[0], middle)
    oracle = remove_reflection(rendered.frames, rendered.times, truth[0], middle)
    target = rendered.transmission[middle]
    row = {
        "events": len(events), "reflection_events": float(np.mean(labels == 1)),
        "true_vx_T": truth[0, 0], "true_vy_T": truth[0, 1],
        "true_vx_R": truth[1, 0], "true_vy_R": truth[1, 1],
        "vx_T": velocities[0, 0], "vy_T": velocities[0, 1],
        "vx_R": velocities[1, 0], "vy_R": velocities[1, 1],
        "motion_error_T_px_s": error[0], "motion_error_R_px_s": error[1],
        "assignment_accuracy": float(np.mean(layer == labels)),
        "assignment_accuracy_clear": float(np.mean((layer == labels)[clear])),
        "psnr_input_db": psnr(rendered.frames[middle], target, margin),
        "psnr_removed_db": psnr(recovered, target, margin),
        "psnr_removed_true_motion_db": psnr(oracle, target, margin),
    }  # fmt: skip
    arrays = {"frame": rendered.frames[middle], "transmission": target, "recovered": recovered,
              "events": events, "layer": layer, "velocities": velocities}  # fmt: skip
    return row, arrays


def decouple_recording(events: np.ndarray, width: int, height: int
                       ) -> tuple[TwoMotions, dict[str, Any]]:  # fmt: skip
    """The two motions and layer sizes of recorded events (no ground truth to score)."""
    found = two_motions(events, width, height)
    return found, {
        "events": len(events), "vx_0": found.velocities[0, 0], "vy_0": found.velocities[0, 1],
        "vx_1": found.velocities[1, 0], "vy_1": found.velocities[1, 1],
        "layer_0_events": int(np.sum(found.layer == 0)),
        "layer_1_events": int(np.sum(found.layer == 1)),
        "contrast_0": found.contrast[0], "contrast_1": found.contrast[1],
    }  # fmt: skip
