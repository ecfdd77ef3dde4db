"""The simulator's default cell, retinal-ganglion-cell-like: a soma, two dendrites, an axon
initial segment (AIS) and an axon running straight across the array. Its morphology lives
in the cell's own frame (soma at the origin, axon along +x in the plane z = 0); eight
parameters set its channel densities, axial resistivity, axon radius and where it lies over
the array. Geometry and axial coupling are JAX functions of those parameters, so they
differentiate. Units: µm, S/cm², Ω·cm, rad, µS (coupling conductances)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from .base import Parameter


def parameters(extent_um: np.ndarray) -> tuple[Parameter, ...]:
    """The parameters and their uniform prior; `extent_um` ((x0, y0), (x1, y1)) bounds the
    soma's position (the array's bounding box)."""
    (x0, y0), (x1, y1) = np.asarray(extent_um, float)
    return (
        Parameter("gna_s_cm2", 0.08, 0.20, "Na⁺ conductance density (×4 in the AIS)"),
        Parameter("gk_s_cm2", 0.02, 0.06, "K⁺ conductance density"),
        Parameter("ra_ohm_cm", 70.0, 200.0, "axial resistivity"),
        Parameter("axon_radius_um", 0.4, 1.0, "axon radius"),
        Parameter("x_um", x0, x1, "soma x over the array"),
        Parameter("y_um", y0, y1, "soma y over the array"),
        Parameter("angle_rad", -np.pi, np.pi, "axon direction in the array plane", True),
        Parameter("height_um", 5.0, 25.0, "axon height above the array surface"),
    )


NAMES = tuple(p.name for p in parameters(np.zeros((2, 2))))
AIS_NA_FACTOR = 4.0
"""Na⁺ density of the axon initial segment relative to the rest of the cell."""
SOMA_LIFT_UM = 10.0
"""How far the soma and dendrites lie above the axon's plane (µm)."""


@dataclass(frozen=True)
class Morphology:
    """Branches (jaxley order, parents, compartments each) and per-compartment geometry in
    the cell's frame: start/end points (µm), length (µm), radius (µm; the axon's is a
    parameter) and which compartments are axon and AIS. Branch 0 is the 1-compartment soma."""

    parents: tuple[int, ...]
    ncomp: tuple[int, ...]
    starts_um: np.ndarray
    ends_um: np.ndarray
    radius_um: np.ndarray
    axon: np.ndarray
    ais: np.ndarray

    @property
    def compartments(self) -> int:
        return len(self.radius_um)

    @property
    def length_um(self) -> np.ndarray:
        return np.linalg.norm(self.ends_um - self.starts_um, axis=1)

    def branch_slices(self) -> list[slice]:
        edges = np.concatenate([[0], np.cumsum(self.ncomp)])
        return [slice(int(a), int(b)) for a, b in pairwise(edges)]

    def couplings(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """Neighbouring compartments within branches ((pairs, 2) indices), and for each
        branch point the compartments meeting there (the parent's last, the children's
        first)."""
        slices = self.branch_slices()
        pairs = [(i, i + 1) for s in slices for i in range(s.start, s.stop - 1)]
        points: dict[int, list[int]] = {}
        for branch, parent in enumerate(self.parents):
            if parent >= 0:
                points.setdefault(parent, [slices[parent].stop - 1]).append(slices[branch].start)
        return np.array(pairs, dtype=np.int64).reshape(-1, 2), [
            np.array(v) for v in points.values()
        ]


def rgc(axon_um: float = 600.0, axon_compartment_um: float = 20.0) -> Morphology:
    """Soma (15 µm long, radius 7.5 µm), two dendrites (4 × 25 µm, radius 1 µm, rising
    towards the inner plexiform layer), AIS (4 × 10 µm, radius 0.8 µm) and an axon of
    `axon_um` in compartments of `axon_compartment_um` along +x."""
    n_axon = max(1, round(axon_um / axon_compartment_um))
    lift = np.array([0.0, 0.0, SOMA_LIFT_UM])
    x = np.array([1.0, 0.0, 0.0])
    starts, ends, radius = [lift - 7.5 * x], [lift + 7.5 * x], [7.5]
    for direction in ([-0.6, 0.6, 0.53], [-0.6, -0.6, 0.53]):
        unit = np.array(direction) / np.linalg.norm(direction)
        for k in range(4):
            starts.append(lift + unit * (7.5 + 25 * k))
            ends.append(lift + unit * (7.5 + 25 * (k + 1)))
            radius.append(1.0)
    # The AIS descends from the soma to the axon's plane over its 40 µm.
    ais_start, ais_end = lift + 7.5 * x, (7.5 + np.sqrt(40**2 - SOMA_LIFT_UM**2)) * x
    for k in range(4):
        starts.append(ais_start + (ais_end - ais_start) * k / 4)
        ends.append(ais_start + (ais_end - ais_start) * (k + 1) / 4)
        radius.append(0.8)
    for k in range(n_axon):
        starts.append(ais_end + axon_compartment_um * k * x)
        ends.append(ais_end + axon_compartment_um * (k + 1) * x)
        radius.append(0.5)
    kind = np.array([0] + [1] * 8 + [2] * 4 + [3] * n_axon)
    return Morphology(
        (-1, 0, 0, 0, 3),
        (1, 4, 4, 4, n_axon),
        np.array(starts),
        np.array(ends),
        np.array(radius),
        kind == 3,
        kind == 2,
    )


def placed(morphology: Morphology, theta: Any) -> tuple[Any, Any]:
    """Compartment (starts, ends) over the array (µm, z = height above its surface) for the
    parameters `theta` (ordered as NAMES): rotated by angle_rad about z, then moved."""
    import jax.numpy as jnp

    x, y, angle, height = theta[4], theta[5], theta[6], theta[7]
    c, s = jnp.cos(angle), jnp.sin(angle)
    rotation = jnp.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    shift = jnp.stack([x, y, height])
    return morphology.starts_um @ rotation.T + shift, morphology.ends_um @ rotation.T + shift


def radii(morphology: Morphology, theta: Any) -> Any:
    """Per-compartment radius (µm): the axon's is axon_radius_um."""
    import jax.numpy as jnp

    return jnp.where(morphology.axon, theta[3], morphology.radius_um)


def laplacian(morphology: Morphology, theta: Any) -> Any:
    """(n, n) axial coupling matrix L (µS): −L·V is each compartment's axial inflow (nA)
    for intracellular potentials V (mV). Neighbours couple through their two half
    cylinders in series; compartments meeting at a branch point couple through its node,
    eliminated (the branch point carries no membrane): g_k·g_l / Σg between each pair."""
    import jax.numpy as jnp

    pairs, points = morphology.couplings()
    r = radii(morphology, theta)
    # Half-cylinder resistance Ra·(l/2)/(πr²) with Ra in Ω·cm, l and r in µm: ×1e4 → Ω.
    half_ohm = theta[2] * (morphology.length_um / 2) / (jnp.pi * r**2) * 1e4
    g_half = 1e6 / half_ohm  # µS
    i, j = pairs[:, 0], pairs[:, 1]
    weights = [1.0 / (1.0 / g_half[i] + 1.0 / g_half[j])]
    rows, cols = [i], [j]
    for members in points:
        a, b = np.triu_indices(len(members), 1)
        g = g_half[members]
        weights.append(g[a] * g[b] / g.sum())
        rows.append(members[a])
        cols.append(members[b])
    w, rows_, cols_ = jnp.concatenate(weights), np.concatenate(rows), np.concatenate(cols)
    n = morphology.compartments
    matrix = jnp.zeros((n, n), dtype=w.dtype)
    matrix = matrix.at[rows_, cols_].add(-w).at[cols_, rows_].add(-w)
    return matrix - jnp.diag(matrix.sum(axis=1))
