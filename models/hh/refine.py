"""Gradient-based refinement through the simulator: Levenberg–Marquardt on the squared
difference between the model's spike template and the observed electrical image (µV²),
with the template's Jacobian from forward-mode differentiation through jaxley, in
parameters scaled to the prior box (and kept inside it: clipped, or wrapped round for
an angle)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...backends.mea.base import CellModel
from .summary import align


@dataclass(frozen=True)
class Refined:
    """theta after refinement; loss_uv2 before and after (sum of squares, µV²); steps."""

    theta: np.ndarray
    loss_before_uv2: float
    loss_after_uv2: float
    steps: int


def refine(
    model: CellModel,
    theta: np.ndarray,
    image: np.ndarray,
    channel: int,
    at: int,
    steps: int = 12,
    damping: float = 1e-2,
) -> Refined:
    """Levenberg–Marquardt from `theta` towards `image` (channels, samples), the template
    aligned like the image (channel's trough at sample `at`); a step that does not lower
    the loss raises the damping tenfold, one that does lowers it."""
    low = np.array([p.low for p in model.parameters])
    span = np.array([p.high for p in model.parameters]) - low

    def residual(theta_: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        template, jacobian = model.template_jacobian(theta_)
        shift = at - int(template[channel].argmin())
        template = align(template, channel, at)
        jacobian = np.roll(jacobian, shift, axis=1)  # the same shift; edges are faint
        return (template - image).ravel(), jacobian.reshape(-1, len(theta_)) * span

    def inside(theta_: np.ndarray) -> np.ndarray:
        return np.array([p.inside(v) for p, v in zip(model.parameters, theta_, strict=True)])

    current = inside(theta)
    r, jac = residual(current)
    first = loss = float(r @ r)
    taken = 0
    for _ in range(steps):
        normal = jac.T @ jac
        step = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), -jac.T @ r)
        candidate = inside(current + step * span)
        r_new, jac_new = residual(candidate)
        if float(r_new @ r_new) < loss:
            current, r, jac, loss = candidate, r_new, jac_new, float(r_new @ r_new)
            damping, taken = damping / 3, taken + 1
        else:
            damping *= 10
    return Refined(current, first, loss, taken)
