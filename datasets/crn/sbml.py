"""SBML (Level 3 Version 2) export and import of mass-action reaction networks, with
python-libsbml. Export: species get ids s0, s1, … and keep their names; every reaction has
a local parameter k (or, with `global_rates`, a global parameter k0, k1, …) and the kinetic
law k·Π reactant^ν (catalysts are reactants and products), in a compartment of size 1.
Import reads kinetic laws as math, so files written by other tools in other styles are
read too (see `read_sbml`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .factor_graph import FactorGraphError
from .reaction_network import NetworkBuilder, ReactionNetwork


class SBMLError(FactorGraphError):
    """An SBML document that is not a mass-action network of this form."""


def _mass_action(rate: str, reactants: list[tuple[str, int]]) -> str:
    return " * ".join([rate, *(f"{s}^{c}" if c > 1 else s for s, c in reactants)])


def to_sbml(network: ReactionNetwork, model_id: str = "crn", global_rates: bool = False) -> str:
    """The network as an SBML L3V2 document (a string). With `global_rates`, reaction r's
    rate constant is the global parameter `k{r}`, which a simulator can change without
    reading the model again (libRoadRunner compiles local parameters in as constants)."""
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
            (
                reaction.createReactant,
                network.reactant_offsets,
                network.reactant_species,
                network.reactant_coefficients,
            ),
            (
                reaction.createProduct,
                network.product_offsets,
                network.product_species,
                network.product_coefficients,
            ),
        )
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
        rate = model.createParameter() if global_rates else law.createLocalParameter()
        rate.setId(f"k{r}" if global_rates else "k")
        rate.setValue(float(network.rates[r]))
        if global_rates:
            rate.setConstant(True)
        law.setMath(libsbml.parseL3Formula(_mass_action(rate.getId(), reactants)))
    return libsbml.writeSBMLToString(document)


def write_sbml(network: ReactionNetwork, path: str | os.PathLike[str]) -> None:
    Path(path).write_text(to_sbml(network))


def read_sbml(path: str | os.PathLike[str]) -> ReactionNetwork:
    """A mass-action network from an SBML file, whoever wrote it (this package, antimony/
    tellurium, COPASI, libsbml): kinetic laws are read as math (`datasets/crn/kinetic_law.py`)
    and must expand to mass-action terms — k·Π reactant^ν for the forward direction, and for
    a reversible reaction optionally −k'·Π product^ν for the reverse — in any order of
    factors, with global and local parameters and compartment sizes as constants. The
    usual volume factor (`cell * k * A * B`, a rate in amount per time) is divided out:
    rates here are concentration per time. Catalysts may be reactant and product or a
    modifier; boundary species are held at their initial concentration and folded into
    the rate constant. Refused, naming the reaction or element: laws that are not mass
    action, rules, events, algebraic constraints, species in compartments of different
    sizes, non-integer stoichiometry."""
    import libsbml

    from .kinetic_law import Constants, mass_action_terms

    document = libsbml.readSBMLFromFile(str(path))
    if document.getNumErrors(libsbml.LIBSBML_SEV_ERROR) or document.getModel() is None:
        raise SBMLError(
            f"{path}: not a readable SBML model: {document.getErrorLog().toString().strip()[:200]}"
        )
    model = document.getModel()
    for what, count in (
        ("rules", model.getNumRules()),
        ("events", model.getNumEvents()),
        ("constraints", model.getNumConstraints()),
    ):
        if count:
            raise SBMLError(
                f"{path}: the model has {what}; only plain mass-action networks are read"
            )
    volumes = {
        c.getId(): (c.getSize() if c.isSetSize() else 1.0) for c in model.getListOfCompartments()
    }
    constants: Constants = dict(volumes)
    for parameter in model.getListOfParameters():
        if not parameter.getConstant() or not parameter.isSetValue():
            raise SBMLError(f"{path}: parameter {parameter.getId()} is not a constant with a value")
        constants[parameter.getId()] = parameter.getValue()
    assigned = {a.getSymbol() for a in model.getListOfInitialAssignments()}
    build = NetworkBuilder()
    index: dict[str, int] = {}
    boundary: dict[str, float] = {}
    amounts: dict[str, float] = {}
    sizes = set()
    for species in model.getListOfSpecies():
        sid = species.getId()
        if sid in assigned:
            raise SBMLError(
                f"{path}: species {sid} has an initial assignment; give its initial concentration"
            )
        volume = volumes.get(species.getCompartment(), 1.0)
        if species.isSetInitialConcentration():
            start = species.getInitialConcentration()
        elif species.isSetInitialAmount():
            start = species.getInitialAmount() / volume
        else:
            raise SBMLError(f"{path}: species {sid} has no initial concentration or amount")
        if species.getHasOnlySubstanceUnits():
            amounts[sid] = volume  # in the math the symbol is an amount: concentration × V
        if species.getBoundaryCondition() or species.getConstant():
            boundary[sid] = start
            continue
        sizes.add(volume)
        index[sid] = build.species(species.getName() or sid, start)
    if len(sizes) > 1:
        shown = ", ".join(f"{v:g}" for v in sorted(sizes))
        raise SBMLError(
            f"{path}: species live in compartments of different sizes ({shown}); one volume is read"
        )
    volume = sizes.pop() if sizes else 1.0
    for reaction in model.getListOfReactions():
        where = f"{path}: reaction {reaction.getId()}"
        sides: dict[str, dict[str, int]] = {"reactants": {}, "products": {}}
        for side, members in (
            ("reactants", reaction.getListOfReactants()),
            ("products", reaction.getListOfProducts()),
        ):
            for reference in members:
                count = reference.getStoichiometry()
                if not reference.isSetStoichiometry() or count != int(count) or count < 1:
                    raise SBMLError(f"{where}: stoichiometry {count} is not a positive integer")
                sid = reference.getSpecies()
                if sid not in boundary:
                    sides[side][sid] = sides[side].get(sid, 0) + int(count)
        law = reaction.getKineticLaw()
        if law is None or law.getMath() is None:
            raise SBMLError(f"{where}: no kinetic law")
        local = dict(constants)
        for parameter in law.getListOfLocalParameters():
            local[parameter.getId()] = parameter.getValue()
        for parameter in law.getListOfParameters():  # SBML Level 2 local parameters
            local[parameter.getId()] = parameter.getValue()
        for sid, value in boundary.items():
            local[sid] = value * amounts.get(sid, 1.0)
        scale = {sid: amounts[sid] for sid in index if sid in amounts}
        try:
            terms = mass_action_terms(law.getMath(), local, set(index), scale)
        except ValueError as error:
            raise SBMLError(f"{where}: kinetic law {law.getFormula()!r} {error}") from None
        modifiers = {m.getSpecies() for m in reaction.getListOfModifiers()}
        _add_terms(
            build,
            index,
            where,
            law.getFormula(),
            terms,
            sides,
            modifiers,
            reaction.getReversible(),
            volume,
        )
    return build.build()


def _add_terms(
    build: NetworkBuilder,
    index: dict[str, int],
    where: str,
    formula: str,
    terms: dict[tuple[tuple[str, int], ...], float],
    sides: dict[str, dict[str, int]],
    modifiers: set[str],
    reversible: bool,
    volume: float,
) -> None:
    """One mass-action reaction per term: a positive term over the reactants (plus
    catalysts) runs forward, a negative one over the products (plus catalysts) backward."""
    for monomial, coefficient in terms.items():
        powers = dict(monomial)
        forward = coefficient > 0
        consumed = sides["reactants"] if forward else sides["products"]
        made = sides["products"] if forward else sides["reactants"]
        catalysts = {s: n - consumed.get(s, 0) for s, n in powers.items() if n > consumed.get(s, 0)}
        short = [s for s, n in consumed.items() if powers.get(s, 0) < n]
        allowed = all(s in modifiers or s in consumed or s in made for s in catalysts)
        if short or not allowed or (not forward and not reversible):
            direction = "forward" if forward else "reverse"
            raise SBMLError(
                f"{where}: kinetic law {formula!r} is not mass action: its {direction} term "
                f"{coefficient:g}·{'·'.join(f'{s}^{n}' for s, n in monomial) or '1'} does not "
                f"read each {'reactant' if forward else 'product'} to its stoichiometry"
                + (
                    ""
                    if allowed
                    else " (a species in it is neither reactant, product nor modifier)"
                )
                + ("" if reversible or forward else " (the reaction is irreversible)")
            )
        left = [index[s] for s, n in {**consumed}.items() for _ in range(n)]
        right = [index[s] for s, n in made.items() for _ in range(n)]
        extra = [index[s] for s, n in catalysts.items() for _ in range(n)]
        build.reaction(left + extra, right + extra, abs(coefficient) / volume)


def same_network(first: ReactionNetwork, second: ReactionNetwork) -> bool:
    """Equal species, reactions, rates and initial state (after a round trip)."""
    fields: list[Any] = [
        "reactant_offsets",
        "reactant_species",
        "reactant_coefficients",
        "product_offsets",
        "product_species",
        "product_coefficients",
    ]
    return (
        first.species == second.species
        and all(np.array_equal(getattr(first, f), getattr(second, f)) for f in fields)
        and np.allclose(first.rates, second.rates, rtol=1e-15)
        and np.allclose(first.initial, second.initial, rtol=1e-15)
    )
