"""The simulator's cell against independent references: its axial coupling against the
network with explicit branch-point nodes eliminated by linear algebra, the disk electrode
against integrating its current density, and the whole cell against NEURON (a somatic
spike: voltages, transmembrane currents and electrode potentials; extracellular
stimulation through NEURON's own `extracellular` mechanism: threshold and spike)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import dblquad

from substrates.backends.mea import cell as cells
from substrates.backends.mea.extracellular import (
    SIGMA_S_PER_M,
    line_source_matrix,
    stimulation_matrix,
)

jax = pytest.importorskip("jax")
pytest.importorskip("jaxley")
THETA = np.array([0.12, 0.036, 100.0, 0.6, -60.0, 0.0, 0.2, 12.0])


@pytest.fixture(scope="module")
def simulation():
    from substrates.backends.mea.simulation import CellSimulation
    from substrates.datasets.mea.geometry import hexagonal

    return CellSimulation(hexagonal(8, 8, 30.0))


def test_coupling_equals_the_network_with_its_branch_nodes_eliminated() -> None:
    morphology = cells.rgc(axon_um=100.0)
    n = morphology.compartments
    slices = morphology.branch_slices()
    radius = np.where(morphology.axon, THETA[3], morphology.radius_um)
    g_half = 1e6 / (THETA[2] * morphology.length_um / 2 / (np.pi * radius**2) * 1e4)
    nodes = {parent for parent in morphology.parents if parent >= 0}
    size = n + len(nodes)
    full = np.zeros((size, size))

    def connect(i: int, j: int, g: float) -> None:
        full[[i, j], [i, j]] += g
        full[i, j] -= g
        full[j, i] -= g

    for s in slices:
        for i in range(s.start, s.stop - 1):
            connect(i, i + 1, 1 / (1 / g_half[i] + 1 / g_half[i + 1]))
    node_of = {parent: n + k for k, parent in enumerate(sorted(nodes))}
    for branch, parent in enumerate(morphology.parents):
        if parent >= 0:
            connect(slices[branch].start, node_of[parent], g_half[slices[branch].start])
    for parent, node in node_of.items():
        connect(slices[parent].stop - 1, node, g_half[slices[parent].stop - 1])
    a, b = full[:n, :n], full[:n, n:]
    reduced = a - b @ np.linalg.solve(full[n:, n:], b.T)  # Schur complement
    with jax.enable_x64(True):
        ours = np.asarray(cells.laplacian(morphology, THETA))
    assert np.allclose(ours, reduced, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rho, z", [(0.0, 3.0), (4.0, 2.0), (12.0, 6.0), (40.0, 15.0)])
def test_disk_electrode_equals_its_integrated_current_density(rho: float, z: float) -> None:
    """An equipotential disk on an insulating plane carries j(r) = I / (2πa√(a² − r²));
    each element is a point source with its image: dφ = j dA / (2πσ d)."""
    a = 5.0

    def element(r: float, angle: float) -> float:
        d = np.sqrt((rho - r * np.cos(angle)) ** 2 + (r * np.sin(angle)) ** 2 + z**2)
        return r / (2 * np.pi * a * np.sqrt(a * a - r * r)) / (2 * np.pi * SIGMA_S_PER_M * d)

    value, _ = dblquad(element, 0, 2 * np.pi, 0, a, epsabs=1e-12, epsrel=1e-9)
    ours = stimulation_matrix(np.array([[rho, 0.0, z]]), np.zeros((1, 2)), a)[0, 0]
    assert ours == pytest.approx(1e3 * value, rel=1e-5)
    far = stimulation_matrix(np.array([[400.0, 0.0, 300.0]]), np.zeros((1, 2)), a)[0, 0]
    assert far == pytest.approx(1e3 / (2 * np.pi * SIGMA_S_PER_M * 500.0), rel=1e-3)


def test_somatic_spike_matches_neuron(simulation) -> None:
    pytest.importorskip("neuron")
    from substrates.testing.neuron import neuron_cell

    m, timing = simulation.morphology, simulation.timing
    injected = simulation._soma_pulse()
    v_neuron, i_neuron = neuron_cell(m, THETA, simulation.celsius).run(
        timing.dt_ms, timing.steps, soma_na=injected[0, :-1]
    )
    with jax.enable_x64(True):
        v_ours = np.asarray(simulation._voltages(THETA, jax.numpy.asarray(injected)))
        coupling = np.asarray(cells.laplacian(m, THETA))
        starts, ends = (np.asarray(a) for a in cells.placed(m, THETA))
    assert v_ours[0].max() > 0  # the soma spikes, and so does the far end of the axon
    assert v_ours[-1].max() > 0
    assert np.abs(v_ours - v_neuron).max() < 0.5  # mV, over every compartment and step
    assert np.abs(v_ours.argmax(axis=1) - v_neuron.argmax(axis=1)).max() <= 1  # peak steps
    membrane = -coupling @ v_ours[:, 1:] + injected[:, :-1]
    assert np.abs(membrane - i_neuron[:, 1:]).max() < 0.01 * np.abs(i_neuron).max()
    field = line_source_matrix(starts, ends, simulation.electrodes_um, m.radius_um)
    ours = simulation.templates(THETA[None])[0]
    theirs = (field @ i_neuron[:, 1:]).reshape(len(field), timing.samples, -1).mean(-1)
    assert np.abs(ours - theirs).max() < 0.02 * np.abs(theirs).max()


def test_extracellular_stimulation_matches_neurons_extracellular_mechanism(simulation) -> None:
    pytest.importorskip("neuron")
    from substrates.testing.neuron import neuron_cell

    m, timing = simulation.morphology, simulation.timing
    thresholds = simulation.thresholds(THETA[None], np.arange(64))[0]
    electrode = int(np.argmin(thresholds))
    assert 0.5 < thresholds[electrode] < simulation.max_current_ua
    reference = neuron_cell(m, THETA, simulation.celsius, extracellular=True)
    with jax.enable_x64(True):
        phi = np.asarray(simulation._phi_per_ua(jax.numpy.asarray(THETA)))[:, electrode]
    wave = timing.waveform("triphasic")
    for factor, spikes in ((0.97, False), (1.03, True), (1.5, True)):
        amplitude = factor * thresholds[electrode]
        v, _ = reference.run(timing.dt_ms, timing.steps, phi_mv=phi[:, None] * amplitude * wave)
        assert (v[0].max() > 0) == spikes, factor
        currents = np.zeros((1, 64))
        currents[0, electrode] = amplitude
        assert bool(simulation.spikes(THETA[None], currents)[0]) == spikes
