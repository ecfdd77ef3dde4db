"""SBML (Level 3 Version 2) export and import of mass-action reaction networks, with
python-libsbml. Species get ids s0, s1, … and keep their names; every reaction has a local
parameter k and the kinetic law k·Π reactant^ν (catalysts are reactants and products)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .factor_graph import FactorGraphError
from .reaction_network import NetworkBuilder, ReactionNetwork


class SBMLError(FactorGraphError):
    """An SBML document that is not a mass-action network of this form."""


def _mass_action(reactants: list[tuple[str, int]]) -> str:
    return " * ".join(["k", *(f"{s}^{c}" if c > 1 else s for s, c in reactants)])


def to_sbml(network: ReactionNetwork, model_id: str = "crn") -> str:
    """The network as an SBML L3V2 document (a string)."""
    import libsbml

    document = libsbml.SBMLDocument(3, 2)
    model = document.createModel()
    model.setId(model_id)
    compartment = model.createCompartment()
    compartment.setId("cell")
    compartment.setSize(1.0)
    compartment.setConstant(True)
    for index, (name, start) in enumerate(zip(network.species, network.initial, strict=True)):
        species = model.createSpecies()
        species.setId(f"s{index}")
        species.setName(name)
        species.setCompartment("cell")
        species.setInitialConcentration(float(start))
        species.setHasOnlySubstanceUnits(False)
        species.setBoundaryCondition(False)
        species.setConstant(False)
    for r in range(network.reactions):
        reaction = model.createReaction()
        reaction.setId(f"r{r}")
        reaction.setReversible(False)
        sides = (
            (reaction.createReactant, network.reactant_offsets, network.reactant_species,
             network.reactant_coefficients),
            (reaction.createProduct, network.product_offsets, network.product_species,
             network.product_coefficients),
        )  # fmt: skip
        reactants = []
        for create, offsets, species_of, coefficients in sides:
            for e in range(offsets[r], offsets[r + 1]):
                reference = create()
                reference.setSpecies(f"s{species_of[e]}")
                reference.setStoichiometry(float(coefficients[e]))
                reference.setConstant(True)
                if create == reaction.createReactant:
                    reactants.append((f"s{species_of[e]}", int(coefficients[e])))
        law = reaction.createKineticLaw()
        rate = law.createLocalParameter()
        rate.setId("k")
        rate.setValue(float(network.rates[r]))
        law.setMath(libsbml.parseL3Formula(_mass_action(reactants)))
    return libsbml.writeSBMLToString(document)


def write_sbml(network: ReactionNetwork, path: str | os.PathLike[str]) -> None:
    Path(path).write_text(to_sbml(network))


def read_sbml(path: str | os.PathLike[str]) -> ReactionNetwork:
    """A mass-action network from an SBML file written in this form; errors name the
    reaction whose kinetic law is not k·Π reactant^ν."""
    import libsbml

    document = libsbml.readSBMLFromFile(str(path))
    if document.getNumErrors(libsbml.LIBSBML_SEV_ERROR) or document.getModel() is None:
        raise SBMLError(f"{path}: not a readable SBML model: "
                        f"{document.getErrorLog().toString().strip()[:200]}")  # fmt: skip
    model = document.getModel()
    build = NetworkBuilder()
    index: dict[str, int] = {}
    for species in model.getListOfSpecies():
        index[species.getId()] = build.species(
            species.getName() or species.getId(), species.getInitialConcentration()
        )
    for reaction in model.getListOfReactions():
        where = f"{path}: reaction {reaction.getId()}"
        sides: dict[str, list[int]] = {"reactants": [], "products": []}
        pairs: list[tuple[str, int]] = []
        for side, members in (("reactants", reaction.getListOfReactants()),
                              ("products", reaction.getListOfProducts())):  # fmt: skip
            for reference in members:
                count = reference.getStoichiometry()
                if count != int(count) or count < 1:
                    raise SBMLError(f"{where}: stoichiometry {count} is not a positive integer")
                sides[side] += [index[reference.getSpecies()]] * int(count)
                if side == "reactants":
                    pairs.append((reference.getSpecies(), int(count)))
        law = reaction.getKineticLaw()
        rate = None if law is None else law.getLocalParameter("k")
        if rate is None:
            raise SBMLError(f"{where}: no kinetic law with a local parameter k")
        expected = libsbml.formulaToL3String(libsbml.parseL3Formula(_mass_action(pairs)))
        if libsbml.formulaToL3String(law.getMath()) != expected:
            raise SBMLError(f"{where}: kinetic law {law.getFormula()!r} is not mass action "
                            f"({expected})")  # fmt: skip
        build.reaction(sides["reactants"], sides["products"], rate.getValue())
    return build.build()


def same_network(first: ReactionNetwork, second: ReactionNetwork) -> bool:
    """Equal species, reactions, rates and initial state (after a round trip)."""
    fields: list[Any] = ["reactant_offsets", "reactant_species", "reactant_coefficients",
                         "product_offsets", "product_species", "product_coefficients"]  # fmt: skip
    return (
        first.species == second.species
        and all(np.array_equal(getattr(first, f), getattr(second, f)) for f in fields)
        and np.allclose(first.rates, second.rates, rtol=1e-15)
        and np.allclose(first.initial, second.initial, rtol=1e-15)
    )
