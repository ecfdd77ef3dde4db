"""The simulator's default cell rebuilt in NEURON, the independent reference for jaxley:
one section per branch (soma, two dendrites, AIS, axon) with a segment per compartment,
`hh` at the same temperature, children on the parent's 1-end, fixed-step backward Euler.
Transmembrane currents come from NEURON's fast i_membrane_ (nA); extracellular
stimulation through NEURON's own `extracellular` mechanism (e_extracellular played per
segment), not through an activating function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends.mea.cell import AIS_NA_FACTOR, Morphology


@dataclass
class NeuronCell:
    """The sections (kept alive) and the segments in the simulator's compartment order."""

    sections: list
    segments: list

    def run(
        self,
        dt_ms: float,
        steps: int,
        soma_na: np.ndarray | None = None,
        phi_mv: np.ndarray | None = None,
        currents: bool = True,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """(v (n, steps + 1) mV, i_membrane (n, steps + 1) nA, or None without `currents`)
        from rest at −65 mV with an IClamp current (steps,) nA at the soma and/or
        extracellular potentials (n, steps) mV at the segments."""
        from neuron import h

        h.dt, h.secondorder = dt_ms, 0
        h.cvode.use_fast_imem(int(currents))
        keep = []
        if soma_na is not None:
            clamp = h.IClamp(self.segments[0])
            clamp.dur = 1e9
            drive = h.Vector(np.concatenate([soma_na, [0.0]]))
            drive.play(clamp._ref_amp, dt_ms)
            keep += [clamp, drive]
        if phi_mv is not None:
            for seg, phi in zip(self.segments, phi_mv, strict=True):
                vector = h.Vector(np.concatenate([phi, [0.0]]))
                vector.play(seg._ref_e_extracellular, dt_ms)
                keep.append(vector)
        v = [h.Vector().record(seg._ref_v) for seg in self.segments]
        i = [h.Vector().record(seg._ref_i_membrane_) for seg in self.segments] if currents else []
        h.finitialize(-65.0)
        h.continuerun(steps * dt_ms)  # NEURON's own stepping loop
        membrane = np.array([x.as_numpy() for x in i]) if currents else None
        return np.array([x.as_numpy() for x in v]), membrane


def neuron_cell(
    morphology: Morphology, theta: np.ndarray, celsius: float, extracellular: bool = False
) -> NeuronCell:
    """The default cell with parameters theta (cell.NAMES order) in NEURON."""
    from neuron import h

    h.load_file("stdrun.hoc")
    h.celsius = celsius
    sections: list[Any] = []
    segments: list[Any] = []
    for index, branch in enumerate(morphology.branch_slices()):
        section = h.Section(name=f"branch{index}")
        section.nseg = branch.stop - branch.start
        section.L = float(morphology.length_um[branch].sum())
        section.Ra = float(theta[2])
        section.cm = 1.0
        section.insert("hh")
        if extracellular:
            section.insert("extracellular")
        kinds = zip(
            morphology.axon[branch],
            morphology.ais[branch],
            morphology.radius_um[branch],
            strict=True,
        )
        for seg, (axon, ais, radius) in zip(section, kinds, strict=True):
            seg.diam = 2 * (float(theta[3]) if axon else float(radius))
            seg.hh.gnabar = float(theta[0]) * (AIS_NA_FACTOR if ais else 1.0)
            seg.hh.gkbar = float(theta[1])
        parent = morphology.parents[index]
        if parent >= 0:
            section.connect(sections[parent](1.0), 0.0)
        sections.append(section)
        segments += list(section)
    return NeuronCell(sections, segments)
