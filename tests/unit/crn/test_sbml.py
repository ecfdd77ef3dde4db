"""SBML export and import (python-libsbml), and libRoadRunner on the export."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.reaction_network import NetworkBuilder
from substrates.datasets.crn.sbml import SBMLError, read_sbml, same_network, write_sbml
from substrates.models.crn.napp_adams import compile_graph
from substrates.testing.crn import loopy_six

pytest.importorskip("libsbml")


def test_round_trip_keeps_every_species_reaction_and_rate(tmp_path) -> None:
    network = compile_graph(loopy_six()).network
    write_sbml(network, tmp_path / "crn.xml")
    assert same_network(read_sbml(tmp_path / "crn.xml"), network)


def test_homodimer_stoichiometry_survives_the_round_trip(tmp_path) -> None:
    build = NetworkBuilder()
    a, b = build.species("A", 1.0), build.species("B", 0.0)
    build.reaction([a, a], [b], 0.5)
    network = build.build()
    write_sbml(network, tmp_path / "dimer.xml")
    again = read_sbml(tmp_path / "dimer.xml")
    assert same_network(again, network) and again.reactant_coefficients.tolist() == [2]


def test_a_kinetic_law_that_is_not_mass_action_is_named(tmp_path) -> None:
    network = compile_graph(loopy_six()).network
    write_sbml(network, tmp_path / "crn.xml")
    text = (tmp_path / "crn.xml").read_text()  # r0's law k·a·b becomes k + a + b
    (tmp_path / "bad.xml").write_text(text.replace("<times/>", "<plus/>", 1))
    with pytest.raises(SBMLError, match="reaction r0: kinetic law"):
        read_sbml(tmp_path / "bad.xml")


def test_roadrunner_rests_where_the_ode_does() -> None:
    compiled = compile_graph(loopy_six())
    ours = create_backend("crn.ode").steady_state(compiled.network, 1e-13).concentrations
    theirs = create_backend("crn.roadrunner").steady_state(compiled.network, 1e-12)
    assert np.allclose(theirs.concentrations, ours, atol=1e-9)
