"""Write the three SWC morphologies of the MEA study's morphology mismatch (issue #48
item 5): ganglion-cell-like cells that the fit's built-in cell (backends/mea/cell.py's
`rgc`: a 7.5 µm soma 10 µm above the axon's plane, two straight 100 µm dendrites, a 40 µm
AIS descending to a straight 600 µm axon) does not describe, in order of how far they
depart from it:

- curved_axon.swc: the built-in soma and dendrites; the axon turns steadily by 25° over
  its 600 µm, in the array's plane.
- large_arbor.swc: a 10 µm soma and four dendrites of 150 µm that fork once (radius 1.5
  to 0.6 µm), 20 µm above the axon; the axon straight.
- bent_wavy_axon.swc: a steeper 30 µm AIS, then the axon bends by 40° at 200 µm and
  rises and falls by 6 µm over the array (a 250 µm wave), with a 6 µm soma and three
  short dendrites.

The axon's radius in the files is ignored by the fit and the simulator alike (it is the
`axon_radius_um` parameter); the soma, dendrites and the axon's path are what differs.
Samples every 10 µm along each path; types 1 soma, 2 axon, 3 dendrite.

    python benchmarks/morphologies/make_morphologies.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
STEP_UM = 10.0


class SWC:
    """Samples of one cell, written as `id type x y z radius parent` lines."""

    def __init__(self, title: str) -> None:
        self.lines = [f"# {title}", "# written by benchmarks/morphologies/make_morphologies.py"]
        self.count = 0

    def add(self, kind: int, point: np.ndarray, radius: float, parent: int) -> int:
        self.count += 1
        x, y, z = (float(v) for v in point)
        self.lines.append(f"{self.count} {kind} {x:.2f} {y:.2f} {z:.2f} {radius:.2f} {parent}")
        return self.count

    def path(self, kind: int, points: np.ndarray, radii: np.ndarray, parent: int) -> int:
        """Samples along `points` (after the first, which is the parent's end); the last id."""
        for point, radius in zip(points[1:], radii[1:], strict=True):
            parent = self.add(kind, point, float(radius), parent)
        return parent

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def straight(start: np.ndarray, direction: np.ndarray, length: float) -> np.ndarray:
    """Points every STEP_UM from `start` along `direction` for `length` µm."""
    unit = np.asarray(direction, float) / np.linalg.norm(direction)
    steps = np.linspace(0.0, length, max(2, round(length / STEP_UM) + 1))
    return start + steps[:, None] * unit


def dendrites(cell: SWC, soma: int, centre: np.ndarray, radius: float, spec: list) -> None:
    """Dendrites from the soma's surface: (direction, length, radius at start, at end,
    fork at this fraction or None)."""
    for direction, length, r0, r1, fork in spec:
        unit = np.asarray(direction, float) / np.linalg.norm(direction)
        start = centre + radius * unit
        first = cell.add(3, start, r0, soma)
        trunk = length * (fork or 1.0)
        points = straight(start, unit, trunk)
        end = cell.path(3, points, np.linspace(r0, (r0 + r1) / 2, len(points)), first)
        if fork:
            for turn in (-0.5, 0.5):
                c, s = np.cos(turn), np.sin(turn)
                branch = np.array([c * unit[0] - s * unit[1], s * unit[0] + c * unit[1], unit[2]])
                rest = straight(points[-1], branch, length - trunk)
                cell.path(3, rest, np.linspace((r0 + r1) / 2, r1, len(rest)), end)


def axon(cell: SWC, soma: int, points: np.ndarray) -> None:
    first = cell.add(2, points[0], 0.8, soma)
    cell.path(2, points, np.full(len(points), 0.5), first)


def ais_then(start: np.ndarray, ais_um: float, drop_um: float) -> np.ndarray:
    """The AIS from `start` down `drop_um` to the axon's plane over `ais_um` of path."""
    run = np.sqrt(ais_um**2 - drop_um**2)
    return straight(start, [run, 0.0, -drop_um], ais_um)


def curved_axon() -> str:
    cell = SWC("curved axon: the built-in soma and dendrites, the axon turning 25° in-plane")
    centre = np.array([0.0, 0.0, 10.0])
    soma = cell.add(1, centre, 7.5, -1)
    spec = [(d, 100.0, 1.0, 1.0, None) for d in ([-0.6, 0.6, 0.53], [-0.6, -0.6, 0.53])]
    dendrites(cell, soma, centre, 7.5, spec)
    ais = ais_then(centre + np.array([7.5, 0.0, 0.0]), 40.0, 10.0)
    heading = np.radians(np.linspace(0.0, 25.0, 61))
    arc = ais[-1] + np.cumsum(
        np.stack([np.cos(heading), np.sin(heading), 0 * heading], axis=1) * STEP_UM, axis=0
    )
    axon(cell, soma, np.concatenate([ais, arc]))
    return cell.text()


def large_arbor() -> str:
    cell = SWC("large arbor: a 10 µm soma 20 µm up, four forked 150 µm dendrites")
    centre = np.array([0.0, 0.0, 20.0])
    soma = cell.add(1, centre, 10.0, -1)
    spec = [
        (d, 150.0, 1.5, 0.6, 0.4)
        for d in ([-0.5, 0.7, 0.5], [-0.5, -0.7, 0.5], [0.3, 0.8, 0.5], [0.3, -0.8, 0.5])
    ]
    dendrites(cell, soma, centre, 10.0, spec)
    ais = ais_then(centre + np.array([10.0, 0.0, 0.0]), 40.0, 20.0)
    axon(cell, soma, np.concatenate([ais, straight(ais[-1], [1, 0, 0], 600.0)[1:]]))
    return cell.text()


def bent_wavy_axon() -> str:
    cell = SWC("bent, wavy axon: a steep 30 µm AIS, a 40° bend at 200 µm, a 6 µm wave")
    centre = np.array([0.0, 0.0, 12.0])
    soma = cell.add(1, centre, 6.0, -1)
    spec = [(d, 60.0, 0.8, 0.5, None) for d in ([-0.7, 0.5, 0.5], [-0.7, -0.5, 0.5], [0, 1, 1])]
    dendrites(cell, soma, centre, 6.0, spec)
    ais = ais_then(centre + np.array([6.0, 0.0, 0.0]), 30.0, 12.0)
    s = np.arange(1, 61) * STEP_UM  # path length along the axon (µm)
    heading = np.where(s <= 200.0, 0.0, np.radians(40.0))
    flat = ais[-1][:2] + np.cumsum(np.stack([np.cos(heading), np.sin(heading)], 1) * STEP_UM, 0)
    height = 3.0 - 3.0 * np.cos(2 * np.pi * s / 250.0)  # 0 to 6 µm above the plane
    axon(cell, soma, np.concatenate([ais, np.column_stack([flat, ais[-1][2] + height])]))
    return cell.text()


MORPHOLOGIES = {
    "curved_axon.swc": curved_axon,
    "large_arbor.swc": large_arbor,
    "bent_wavy_axon.swc": bent_wavy_axon,
}


def main() -> None:
    for name, make in MORPHOLOGIES.items():
        (HERE / name).write_text(make())
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
