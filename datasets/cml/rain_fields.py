"""Synthetic rain fields: Gaussian random fields with a power-law spectrum, evolving in time
(AR(1) per Fourier mode), advected, and transformed to intermittent lognormal rain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri


@dataclass(frozen=True)
class RainFieldModel:
    """size: grid cells per side; cell_km: cell size; beta: spectral exponent of the power
    spectrum |k|^-beta; wet_fraction: share of the domain with rain; median_mm_h and
    sigma_log: lognormal rain intensity where wet; lifetime_min: decorrelation time of the
    field's structure; velocity_km_h: advection (east, north); anisotropy: ratio ≥ 1 of the
    correlation length along `orientation_deg` (counter-clockwise from east) to that across
    it (1: isotropic)."""

    size: int = 64
    cell_km: float = 0.5
    beta: float = 3.0
    wet_fraction: float = 0.35
    median_mm_h: float = 2.0
    sigma_log: float = 1.0
    lifetime_min: float = 60.0
    velocity_km_h: tuple[float, float] = (20.0, 10.0)
    anisotropy: float = 1.0
    orientation_deg: float = 0.0


def _spectral_amplitude(model: RainFieldModel) -> np.ndarray:
    k = np.fft.fftfreq(model.size)
    k_north, k_east = np.meshgrid(k, k, indexing="ij")
    angle = np.radians(model.orientation_deg)
    along = k_east * np.cos(angle) + k_north * np.sin(angle)
    across = -k_east * np.sin(angle) + k_north * np.cos(angle)
    stretch = np.sqrt(model.anisotropy)  # longer correlation along: lower frequencies there
    radius = np.hypot(along * stretch, across / stretch)
    radius[0, 0] = np.inf  # no mean component
    return radius ** (-model.beta / 2)


def rain_fields(
    model: RainFieldModel, steps: int, step_min: float, seed: int, device: str | None = None
) -> np.ndarray:
    """Rain rate (mm/h) on the grid at each step, shape (steps, size, size); row = north.

    device: None computes with numpy; a torch device ('cpu', 'cuda') computes the FFTs and
    transforms there from the same random numbers, so both agree to rounding.
    """
    rng = np.random.default_rng(seed)
    xp, put = _backend(device)
    amplitude = put(_spectral_amplitude(model))
    keep = np.exp(-step_min / model.lifetime_min)
    shape = (model.size, model.size)

    def noise() -> Any:
        return xp.fft.fft2(put(rng.standard_normal(shape))) * amplitude

    spectrum = noise()
    threshold = float(ndtri(1 - model.wet_fraction))
    k = 2 * np.pi * np.fft.fftfreq(model.size)
    k_north, k_east = np.meshgrid(k, k, indexing="ij")
    east, north = (v * step_min / 60 / model.cell_km for v in model.velocity_km_h)
    shift = put(np.exp(-1j * (k_east * east + k_north * north)))  # advection by Fourier shift
    fields = []
    for t in range(steps):
        if t:
            spectrum = shift * (keep * spectrum + np.sqrt(1 - keep**2) * noise())
        gaussian = xp.fft.ifft2(spectrum).real
        gaussian = (gaussian - gaussian.mean()) / _std(gaussian)
        excess = xp.clip(gaussian - threshold, 0, None)
        # lognormal intensity where wet: the Gaussian's tail above the threshold maps to
        # the scale and spread of the wet rain rates
        wet = model.median_mm_h * xp.exp(model.sigma_log * (excess - 0.5))
        fields.append(xp.where(excess > 0, wet, 0 * wet))
    return _to_numpy(xp.stack(fields))


def _backend(device: str | None) -> tuple[Any, Any]:
    """(array namespace, host-array -> namespace array) for numpy or torch on `device`."""
    if device is None:
        return np, np.asarray
    import torch

    return torch, lambda a: torch.as_tensor(a, device=device)


def _std(values: Any) -> Any:
    return values.std() if isinstance(values, np.ndarray) else values.std(correction=0)


def _to_numpy(values: Any) -> np.ndarray:
    return values if isinstance(values, np.ndarray) else values.cpu().numpy()


def spectral_slope(field: np.ndarray) -> float:
    """Slope of the radially averaged power spectrum in log-log (≈ −beta for the Gaussian),
    over frequencies 0.02–0.4 per cell; fields need not be square."""
    power = np.abs(np.fft.fft2(field - field.mean())) ** 2
    ky, kx = np.fft.fftfreq(field.shape[0]), np.fft.fftfreq(field.shape[1])
    radius = np.hypot(*np.meshgrid(ky, kx, indexing="ij"))
    bins = np.linspace(0.02, 0.4, 15)
    index = np.digitize(radius, bins)
    centres, means = [], []
    for i in range(1, len(bins)):
        ring = index == i
        if ring.any():
            centres.append(radius[ring].mean())
            means.append(power[ring].mean())
    return float(np.polyfit(np.log(centres), np.log(means), 1)[0])
