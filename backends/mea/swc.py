"""SWC morphologies (one sample a line: id, type, x, y, z, radius, parent; types 1 soma,
2 axon, 3 basal and 4 apical dendrite; Cannon et al. 1998) as the simulator's Morphology:
the soma becomes one compartment (a cylinder as long as it is wide, at the soma samples'
centroid, radius their largest); every unbranched path (from its first sample where it
leaves the soma, from its parent's last elsewhere) becomes a branch cut into equal
compartments of about compartment_um (straight chords of the path between its cuts),
radius interpolated at each compartment's middle;
the first AIS_UM of axon is the axon initial segment. The frame is shifted so the soma
lies at x = y = 0 and the lowest sample at z = 0 (the height parameter lifts it)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ...errors import InputFileError
from .cell import Morphology

AIS_UM = 40.0
"""Length of axon from the soma that carries the AIS's Na⁺ density (µm)."""


class SWCError(InputFileError):
    """An SWC file that cannot be a cell; the message names the file and line."""


def _samples(path: Path) -> dict[int, tuple[int, np.ndarray, float, int]]:
    samples: dict[int, tuple[int, np.ndarray, float, int]] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].split()
        if not text:
            continue
        try:
            ident, kind, x, y, z, radius, parent = (
                f(v) for f, v in zip((int, int, float, float, float, float, int), text, strict=True)
            )
        except ValueError:
            raise SWCError(f"{path}:{number}: expected 'id type x y z radius parent'") from None
        if parent != -1 and parent not in samples:
            raise SWCError(f"{path}:{number}: parent {parent} is not defined above")
        samples[ident] = (kind, np.array([x, y, z]), radius, parent)
    return samples


def read_swc(path: str | os.PathLike[str], compartment_um: float = 20.0) -> Morphology:
    """The morphology of an SWC file (see the module's docstring)."""
    path = Path(path)
    samples = _samples(path)
    soma = [i for i, s in samples.items() if s[0] == 1]
    if not soma:
        raise SWCError(f"{path}: no soma sample (type 1)")
    centre = np.mean([samples[i][1] for i in soma], axis=0)
    soma_radius = max(samples[i][2] for i in soma)
    children: dict[int, list[int]] = {}
    for ident, (_, _, _, parent) in samples.items():
        children.setdefault(parent, []).append(ident)
    roots = [c for i in soma for c in children.get(i, []) if samples[c][0] != 1]
    x = np.array([1.0, 0.0, 0.0])
    starts, ends, radius = [centre - soma_radius * x], [centre + soma_radius * x], [soma_radius]
    kinds, parents, ncomp, distance = [1], [-1], [1], [0.0]
    # Each branch: (first sample, parent branch, start point, start radius, path distance);
    # a branch off the soma starts at its first sample (as jaxley's and NEURON's readers do).
    queue = [(r, 0, None, None, 0.0) for r in roots]
    while queue:
        first, parent, start, start_radius, travelled = queue.pop(0)
        points, radii, node = [samples[first][1]], [samples[first][2]], first
        if start is not None:
            points, radii = [start, *points], [start_radius, *radii]
        while len(children.get(node, [])) == 1:
            node = children[node][0]
            points.append(samples[node][1])
            radii.append(samples[node][2])
        points_, radii_ = np.array(points), np.array(radii)
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points_, axis=0), axis=1))])
        if arc[-1] <= 0:
            raise SWCError(f"{path}: the branch from sample {first} has no length")
        n = max(1, round(arc[-1] / compartment_um))
        cuts = np.linspace(0.0, arc[-1], n + 1)
        at = np.stack([np.interp(cuts, arc, points_[:, k]) for k in range(3)], axis=1)
        starts += list(at[:-1])
        ends += list(at[1:])
        radius += list(np.interp((cuts[:-1] + cuts[1:]) / 2, arc, radii_))
        distance += list(travelled + (cuts[:-1] + cuts[1:]) / 2)
        kinds += [samples[first][0]] * n
        parents.append(parent)
        ncomp.append(n)
        branch = len(ncomp) - 1
        queue += [
            (c, branch, samples[node][1], samples[node][2], travelled + arc[-1])
            for c in children.get(node, [])
        ]
    kind, distance_ = np.array(kinds), np.array(distance)
    if not (kind == 2).any():
        raise SWCError(f"{path}: no axon samples (type 2) to run across the array")
    lowest = min(np.min(starts, axis=0)[2], np.min(ends, axis=0)[2])
    shift = np.array([centre[0], centre[1], lowest])
    return Morphology(
        tuple(parents),
        tuple(ncomp),
        np.array(starts) - shift,
        np.array(ends) - shift,
        np.array(radius),
        kind == 2,
        (kind == 2) & (distance_ < AIS_UM),
    )
