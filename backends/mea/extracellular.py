"""Extracellular potentials of transmembrane currents at electrodes, in a homogeneous medium
of conductivity σ, with the method-of-images factor for an insulating array surface.

Point source: φ = I / (4πσ d). Line source (a segment carrying I spread evenly along its
length L; Holt & Koch 1999): φ = I / (4πσL) · [asinh(a / r) − asinh((a − L) / r)], with a
the position of the electrode's projection along the segment from its start and r its
distance from the segment's axis (floored at the segment radius). Sources in tissue above an
insulating plane (the array, electrodes on it) see their potential doubled there (an image
source mirrored through the plane). Units: I in nA, lengths in µm, σ in S/m, φ in µV
(1 nA / (1 S/m · 1 µm) = 1 mV).

Stimulation runs the other way: an electrode on the insulating surface passing I sets the
potential φe = I / (2πσ d) at distance d (a point source with its image), or, for a disk
electrode of radius a (Wiley & Webster 1982), φe = I / (2πσ a) · arcsin(2a / (d₋ + d₊))
with d∓ the distances to the disk's nearest and farthest rim points in the plane through
the point. Units there: I in µA, φe in mV.

Every function takes `xp`, the array module (numpy, or jax.numpy to differentiate)."""

from __future__ import annotations

from typing import Any

import numpy as np

SIGMA_S_PER_M = 0.3
"""Conductivity of retina / cortex-like tissue (S/m)."""


def point_source(
    currents_na: np.ndarray,
    sources_um: np.ndarray,
    electrodes_um: np.ndarray,
    sigma: float = SIGMA_S_PER_M,
    insulating_plane: bool = True,
) -> np.ndarray:
    """(electrodes,) µV from point currents at `sources_um` (n, 3) and electrodes (m, 3)."""
    d = np.linalg.norm(electrodes_um[:, None] - sources_um[None], axis=-1)
    factor = 2.0 if insulating_plane else 1.0
    return factor * 1e3 * (currents_na[None] / (4 * np.pi * sigma * d)).sum(axis=1)


def line_source_matrix(
    starts_um: np.ndarray,
    ends_um: np.ndarray,
    electrodes_um: np.ndarray,
    radius_um: np.ndarray | float = 1.0,
    sigma: float = SIGMA_S_PER_M,
    insulating_plane: bool = True,
    xp: Any = np,
) -> Any:
    """(electrodes, segments) µV per nA: the potential at each electrode of 1 nA spread
    along each segment; multiply by the segments' currents (nA) for the potentials."""
    axis = ends_um - starts_um
    length = xp.linalg.norm(axis, axis=-1)
    unit = axis / length[:, None]
    offset = electrodes_um[:, None] - starts_um[None]  # (m, n, 3)
    a = xp.einsum("mnk,nk->mn", offset, unit)
    r = xp.sqrt(xp.maximum((offset**2).sum(-1) - a**2, 0.0))
    r = xp.maximum(r, xp.broadcast_to(radius_um, length.shape)[None])
    integral = xp.arcsinh(a / r) - xp.arcsinh((a - length[None]) / r)
    factor = 2.0 if insulating_plane else 1.0
    return factor * 1e3 * integral / (4 * np.pi * sigma * length[None])


def stimulation_matrix(
    points_um: Any,
    electrodes_um: Any,
    disk_radius_um: float = 0.0,
    sigma: float = SIGMA_S_PER_M,
    xp: Any = np,
) -> Any:
    """(points, electrodes) mV per µA: the potential at each point (n, 3) of 1 µA passed by
    each electrode (m, 2 or 3, on the surface z = 0); a point source when disk_radius_um is
    0, else a disk of that radius."""
    planar = points_um[:, None, :2] - electrodes_um[None, :, :2]
    rho = xp.sqrt((planar**2).sum(-1))
    z = points_um[:, None, 2]
    if disk_radius_um == 0.0:
        return 1e3 / (2 * np.pi * sigma * xp.sqrt(rho**2 + z**2))
    a = disk_radius_um
    near, far = xp.sqrt((rho - a) ** 2 + z**2), xp.sqrt((rho + a) ** 2 + z**2)
    return 1e3 / (2 * np.pi * sigma * a) * xp.arcsin(xp.minimum(2 * a / (near + far), 1.0))
