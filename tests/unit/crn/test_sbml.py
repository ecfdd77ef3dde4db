"""SBML export and import (python-libsbml), and libRoadRunner on the export."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.crn.reaction_network import NetworkBuilder
from substrates.datasets.crn.sbml import SBMLError, read_sbml, same_network, write_sbml
from substrates.errors import SubstratesError
from substrates.models.crn.napp_adams import compile_graph
from substrates.testing.crn import loopy_six

pytest.importorskip("libsbml")


def test_round_trip_keeps_every_species_reaction_and_rate(tmp_path) -> None:
    network = compile_graph(loopy_six()).network
    write_sbml(network, tmp_path / "crn.xml")
    assert same_network(read_sbml(tmp_path / "crn.xml"), network)


def test_rates_as_global_parameters_read_back_the_same(tmp_path) -> None:
    from substrates.datasets.crn.sbml import to_sbml

    network = compile_graph(loopy_six()).network
    (tmp_path / "crn.xml").write_text(to_sbml(network, global_rates=True))
    assert 'id="k5"' in (tmp_path / "crn.xml").read_text()
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


def test_roadrunner_reuses_its_model_and_answers_as_crn_ode() -> None:
    """New rates and initial states, and trajectories, on one kept model (one load in all:
    rates are its parameters) rest where crn.ode, another solver, does."""
    from dataclasses import replace

    network = compile_graph(loopy_six()).network
    rng = np.random.default_rng(3)
    variants = [network]
    variants += [
        replace(network, rates=network.rates * rng.uniform(0.5, 1.5, network.reactions))
        for _ in range(3)
    ]
    variants += [
        replace(network, initial=network.initial * rng.uniform(0.2, 2.0, len(network.species)))
        for _ in range(2)
    ]
    kept, ode = create_backend("crn.roadrunner"), create_backend("crn.ode")
    for variant in variants:
        theirs = ode.steady_state(variant, 1e-13).concentrations
        again = kept.steady_state(variant, 1e-12).concentrations
        assert np.allclose(again, theirs, atol=1e-9, rtol=0)
    times = np.linspace(0, 5, 6)
    assert np.allclose(
        kept.simulate(variants[1], times), ode.simulate(variants[1], times), atol=1e-7, rtol=0
    )
    assert kept.loads == 1


ANTIMONY = {
    "factors in any order, a volume factor and global parameters": """
        compartment cell = 2.5
        species A in cell, B in cell, C in cell
        A = 1; B = 0.5; C = 0.1
        k1 = 0.3; k2 = 0.05
        J0: A + B -> C; cell*k1*B*A
        J1: C -> A + B; k2*C*cell
    """,
    "a reversible law as forward minus reverse": """
        compartment cell = 1
        species A in cell, B in cell
        A = 2; B = 0
        kf = 1.5; kr = 0.25
        J0: A -> B; kf*A - kr*B
    """,
    "a catalyst as modifier, a homodimer, a boundary species, amounts": """
        compartment cell = 0.5
        species E in cell, S in cell, P in cell, D in cell
        species $F in cell
        E = 0.2; S = 1; P = 0; D = 0; F = 0.7
        k = 2; kd = 0.1; kf = 0.4
        J0: S => P; cell*k*E*S
        J1: 2 P => D; cell*kd*P^2
        J2: => S; cell*kf*F
    """,
}


def _antimony_sbml(body: str, path) -> None:
    antimony = pytest.importorskip("antimony")
    antimony.clearPreviousLoads()
    if antimony.loadAntimonyString(f"model m\n{body}\nend\n") < 0:
        raise AssertionError(antimony.getLastError())
    path.write_text(antimony.getSBMLString("m"))


@pytest.mark.parametrize("name", list(ANTIMONY))
def test_sbml_written_by_antimony_simulates_as_roadrunner_simulates_it(tmp_path, name) -> None:
    import roadrunner

    path = tmp_path / "model.xml"
    _antimony_sbml(ANTIMONY[name], path)
    network = read_sbml(path)
    times = np.linspace(0, 5, 11)
    ours = create_backend("crn.ode").simulate(network, times)
    runner = roadrunner.RoadRunner(str(path))
    runner.integrator.relative_tolerance = 1e-12
    runner.integrator.absolute_tolerance = 1e-14
    runner.timeCourseSelections = [f"[{s}]" for s in network.species]
    theirs = np.asarray(runner.simulate(times=times.tolist()))
    assert np.allclose(ours, theirs, rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "species S, P; S = 1; P = 0; Vm = 1; Km = 0.5\nJ0: S -> P; Vm*S/(Km + S)",
            "divides by a species: not mass action",
        ),
        ("species A, B; A = 1; B = 0; k = 1\nJ0: 2 A -> B; k*A", "does not read each"),
        ("species A, B; A = 1; B = 0; k = 1\nJ0: A => B; k*A - k*B", "irreversible"),
        ("species A, B; A = 1; B = 0; k = 1\nJ0: A -> B; k*A\nk' = 0.1", "has rules"),
        ("species A, B; A = 1; B = 0; k = 1\nJ0: A -> B; k*A^0.5", "power 0.5"),
    ],
)
def test_laws_that_are_not_mass_action_are_refused_naming_the_reaction(
    tmp_path, body, message
) -> None:
    path = tmp_path / "model.xml"
    _antimony_sbml(body, path)
    with pytest.raises(SBMLError, match=r"model\.xml") as raised:
        read_sbml(path)
    assert message in str(raised.value)


def test_roadrunner_says_how_far_from_rest_it_stopped() -> None:
    """A tolerance no solver reaches: NLEQ2 is run again from where it stopped, then the
    run is refused with the residual it reached."""
    network = compile_graph(loopy_six()).network
    with pytest.raises(SubstratesError, match=r"steady state with max \|dx/dt\| = .* > 1e-30"):
        create_backend("crn.roadrunner").steady_state(network, 1e-30)


def test_the_written_text_passes_libsbml_consistency_checks_and_reads_back(tmp_path) -> None:
    """The writer composes the XML itself (not through libsbml's object tree): libsbml's
    own validator finds no error in it, in both rate styles, and a network with a source
    (∅ → A), a sink (B → ∅), a homodimer and a name that needs escaping reads back equal."""
    import libsbml

    from substrates.datasets.crn.sbml import to_sbml

    build = NetworkBuilder()
    a, b = build.species('A<"&>', 0.25), build.species("B", 1 / 3)
    build.reaction([], [a], 0.1)
    build.reaction([b], [], 2.5e-17)
    build.reaction([a, a], [a, b], 7.0)
    network = build.build()
    for global_rates in (False, True):
        text = to_sbml(network, "m", global_rates=global_rates)
        document = libsbml.readSBMLFromString(text)
        document.checkConsistency()
        errors = [
            document.getError(i).getMessage()
            for i in range(document.getNumErrors())
            if document.getError(i).getSeverity() >= libsbml.LIBSBML_SEV_ERROR
        ]
        assert errors == []
        (tmp_path / "m.xml").write_text(text)
        assert same_network(read_sbml(tmp_path / "m.xml"), network)
