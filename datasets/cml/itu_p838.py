"""ITU-R P.838-3: specific attenuation by rain, γ = k·R^α (dB/km, R in mm/h).

k and α by the recommendation's closed-form fits in log10 f (f in GHz, 1–1000), for
horizontal and vertical polarization, combined for path elevation θ and polarization
tilt τ. Written with array operations that numpy and torch share, so the same function
differentiates under torch autograd.
"""

from __future__ import annotations

import math
from typing import Any

# (a_j, b_j, c_j) per Gaussian term, then (m, c) of the linear term.
_K_H = (
    (-5.33980, -0.35351, -0.23789, -0.94158),
    (-0.10008, 1.26970, 0.86036, 0.64552),
    (1.13098, 0.45400, 0.15354, 0.16817),
    -0.18961,
    0.71147,
)
_K_V = (
    (-3.80595, -3.44965, -0.39902, 0.50167),
    (0.56934, -0.22911, 0.73042, 1.07319),
    (0.81061, 0.51059, 0.11899, 0.27195),
    -0.16398,
    0.63297,
)
_A_H = (
    (-0.14318, 0.29591, 0.32177, -5.37610, 16.1721),
    (1.82442, 0.77564, 0.63773, -0.96230, -3.29980),
    (-0.55187, 0.19822, 0.13164, 1.47828, 3.43990),
    0.67849,
    -1.95537,
)
_A_V = (
    (-0.07771, 0.56727, -0.20238, -48.2991, 48.5833),
    (2.33840, 0.95545, 1.14520, 0.791669, 0.791459),
    (-0.76284, 0.54039, 0.26809, 0.116226, 0.116479),
    -0.053739,
    0.83433,
)


def _fit(log_f: Any, coefficients: tuple, xp: Any) -> Any:
    a, b, c, m, offset = coefficients
    total = m * log_f + offset
    for a_j, b_j, c_j in zip(a, b, c, strict=True):
        total = total + a_j * xp.exp(-(((log_f - b_j) / c_j) ** 2))
    return total


def _namespace(frequency_ghz: Any) -> Any:
    if type(frequency_ghz).__module__.startswith("torch"):
        import torch

        return torch
    import numpy

    return numpy


def k_alpha(
    frequency_ghz: Any,
    polarization: str = "h",
    elevation_deg: float = 0.0,
    tilt_deg: float | None = None,
) -> tuple[Any, Any]:
    """(k, α) of γ = k·R^α at `frequency_ghz` (array or torch tensor).

    polarization: 'h' (τ = 0°) or 'v' (τ = 90°); `tilt_deg` overrides it with any tilt.
    elevation_deg: path elevation θ (0 for terrestrial links).
    """
    xp = _namespace(frequency_ghz)
    f = frequency_ghz if xp.__name__ == "torch" else xp.asarray(frequency_ghz, dtype=float)
    if tilt_deg is None:
        if polarization not in ("h", "v"):
            raise ValueError(f"polarization must be 'h' or 'v', got {polarization!r}")
        tilt_deg = 0.0 if polarization == "h" else 90.0
    log_f = xp.log10(f)
    k_h = 10 ** _fit(log_f, _K_H, xp)
    k_v = 10 ** _fit(log_f, _K_V, xp)
    a_h = _fit(log_f, _A_H, xp)
    a_v = _fit(log_f, _A_V, xp)
    mix = math.cos(math.radians(elevation_deg)) ** 2 * math.cos(math.radians(2 * tilt_deg))
    k = (k_h + k_v + (k_h - k_v) * mix) / 2
    alpha = (k_h * a_h + k_v * a_v + (k_h * a_h - k_v * a_v) * mix) / (2 * k)
    return k, alpha


def k_alpha_by_polarization(frequency_ghz: Any, polarization: Any) -> tuple[Any, Any]:
    """(k, α) for numpy arrays of frequencies (GHz) and polarizations ('h'/'v') of one
    shape, e.g. (links, sublinks)."""
    import numpy

    frequency = numpy.asarray(frequency_ghz, dtype=float)
    polarization = numpy.broadcast_to(numpy.asarray(polarization), frequency.shape)
    k, alpha = numpy.empty_like(frequency), numpy.empty_like(frequency)
    for pol in ("h", "v"):
        rows = polarization == pol
        k[rows], alpha[rows] = k_alpha(frequency[rows], pol)
    return k, alpha


def specific_attenuation(rain_mm_h: Any, frequency_ghz: Any, polarization: str = "h") -> Any:
    """γ in dB/km for rain rate R in mm/h."""
    k, alpha = k_alpha(frequency_ghz, polarization)
    return k * rain_mm_h**alpha


def rain_rate(
    attenuation_db: Any, length_km: Any, frequency_ghz: Any, polarization: str = "h"
) -> Any:
    """Path-averaged rain rate (mm/h) from rain attenuation A (dB) over L km: (A/(kL))^(1/α)."""
    k, alpha = k_alpha(frequency_ghz, polarization)
    return (attenuation_db / (k * length_km)) ** (1 / alpha)
