"""SWC morphologies: our reader against jaxley's own (total axon and dendrite length), a
cell built from one spiking as NEURON's copy does, and a broken file refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.errors import SubstratesError

jax = pytest.importorskip("jax")
pytest.importorskip("jaxley")
THETA = np.array([0.12, 0.036, 100.0, 0.6, 0.0, 0.0, 0.0, 10.0])
# id type x y z radius parent: a soma, a dendrite that forks, an axon leaving at a bend.
SWC = """# a small ganglion-cell-like neuron
1 1 0 0 30 7 -1
2 3 -8 5 34 1.2 1
3 3 -40 25 50 1.0 2
4 3 -70 60 70 0.8 3
5 3 -60 10 75 0.7 3
6 2 9 0 28 0.9 1
7 2 40 0 12 0.7 6
8 2 150 5 2 0.5 7
9 2 400 10 0 0.5 8
10 2 650 12 0 0.5 9
"""


@pytest.fixture()
def swc(tmp_path):
    (tmp_path / "cell.swc").write_text(SWC)
    return tmp_path / "cell.swc"


def test_lengths_match_jaxleys_own_reader(swc) -> None:
    import jaxley as jx

    from substrates.backends.mea.swc import read_swc

    ours = read_swc(swc, compartment_um=10.0)
    theirs = jx.read_swc(str(swc), ncomp=4)
    for kind, mask in (("axon", ours.axon), ("basal", ~ours.axon)):
        group = theirs.nodes[theirs.nodes[kind]] if kind in theirs.nodes else None
        expected = group["length"].sum()
        got = ours.length_um[mask][1:].sum() if kind == "basal" else ours.length_um[mask].sum()
        assert got == pytest.approx(expected, rel=1e-3), kind  # chords cut the bends
    assert ours.ais.sum() >= 1 and not ours.ais[~ours.axon].any()
    assert min(ours.starts_um[:, 2].min(), ours.ends_um[:, 2].min()) == 0.0


def test_an_swc_cell_spikes_as_neuron_says(swc) -> None:
    pytest.importorskip("neuron")
    from substrates.backends.mea.simulation import CellSimulation
    from substrates.backends.mea.swc import read_swc
    from substrates.datasets.mea.geometry import hexagonal
    from substrates.testing.neuron import neuron_cell

    simulation = CellSimulation(hexagonal(4, 4, 60.0), read_swc(swc, compartment_um=20.0))
    injected = simulation._soma_pulse()
    timing = simulation.timing
    v_neuron, _ = neuron_cell(simulation.morphology, THETA, simulation.celsius).run(
        timing.dt_ms, timing.steps, soma_na=injected[0, :-1], currents=False
    )
    with jax.enable_x64(True):
        v_ours = np.asarray(simulation._voltages(THETA, jax.numpy.asarray(injected)))
    assert v_ours[0].max() > 0 and v_ours[-1].max() > 0  # soma and axon end
    assert np.abs(v_ours - v_neuron).max() < 1.0  # mV, on a 100 mV spike in tapering branches
    assert np.abs(v_ours.argmax(axis=1) - v_neuron.argmax(axis=1)).max() <= 1
    assert simulation.templates(THETA[None]).min() < -5  # µV: the array sees it


def test_a_broken_swc_is_refused_by_name(tmp_path) -> None:
    (tmp_path / "bad.swc").write_text("1 1 0 0 0 5 -1\n2 2 10 0 0 1 7\n")
    backend = create_backend("mea.jaxley", {"morphology": str(tmp_path / "bad.swc")})
    with pytest.raises(SubstratesError, match=r"options.morphology: .*bad.swc:2: parent 7"):
        backend.recording()


MORPHOLOGIES = Path(__file__).parents[3] / "benchmarks" / "morphologies"


@pytest.mark.parametrize("name", ["curved_axon", "large_arbor", "bent_wavy_axon"])
def test_the_studys_morphologies_are_their_scripts_and_jaxley_reads_them(name) -> None:
    """The mismatch study's SWC files are what make_morphologies.py writes, and our reader
    and jaxley's agree on their axon's length (chords cut the bends: within 0.5%)."""
    import importlib.util

    import jaxley as jx

    from substrates.backends.mea.swc import read_swc

    spec = importlib.util.spec_from_file_location("make", MORPHOLOGIES / "make_morphologies.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    path = MORPHOLOGIES / f"{name}.swc"
    assert path.read_text() == make.MORPHOLOGIES[path.name]()
    ours = read_swc(path, compartment_um=20.0)
    theirs = jx.read_swc(str(path), ncomp=2)
    expected = theirs.nodes[theirs.nodes["axon"]]["length"].sum()
    assert ours.length_um[ours.axon].sum() == pytest.approx(expected, rel=5e-3)
    assert ours.ais.any() and ours.axon.sum() >= 30
