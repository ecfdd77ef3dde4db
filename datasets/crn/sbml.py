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
from xml.sax.saxutils import quoteattr

import numpy as np

from .factor_graph import FactorGraphError
from .reaction_network import NetworkBuilder, ReactionNetwork


class SBMLError(FactorGraphError):
    """An SBML document that is not a mass-action network of this form."""


MATHML = "http://www.w3.org/1998/Math/MathML"


def to_sbml(network: ReactionNetwork, model_id: str = "crn", global_rates: bool = False) -> str:
    """The network as an SBML L3V2 document (a string). With `global_rates`, reaction r's
    rate constant is the global parameter `k{r}`, which a simulator can change without
    reading the model again (libRoadRunner compiles local parameters in as constants).

    Written as text, element by element in the layout libsbml writes (python-libsbml
    reads it back and its consistency check passes: `tests/unit/crn/test_sbml.py`):
    building libsbml's object tree first took 23 s and 4 GB for water's two CRNs
    (132,344 reactions), this takes about a second and the document's own size
    (`benchmarks/crn_sbml.py`). Rates and concentrations are written with Python's shortest
    round-trip repr, so a file read back holds the same doubles.

    Example:
        >>> from substrates.datasets.crn.reaction_network import NetworkBuilder
        >>> build = NetworkBuilder()
        >>> a, b = build.species("A", 1.0), build.species("B", 0.0)
        >>> build.reaction([a, a], [b], 0.5)
        >>> "<power/>" in to_sbml(build.build())
        True
    """
    rate_of = (lambda r: f"k{r}") if global_rates else (lambda r: "k")
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">\n'
        f"  <model id={quoteattr(model_id)}>\n"
        "    <listOfCompartments>\n"
        '      <compartment id="cell" size="1" constant="true"/>\n'
        "    </listOfCompartments>\n"
    ]
    if network.species:
        out.append("    <listOfSpecies>\n")
        out += [
            f'      <species id="s{index}" name={quoteattr(name)} compartment="cell" '
            f'initialConcentration="{float(start)!r}" hasOnlySubstanceUnits="false" '
            'boundaryCondition="false" constant="false"/>\n'
            for index, (name, start) in enumerate(
                zip(network.species, network.initial, strict=True)
            )
        ]
        out.append("    </listOfSpecies>\n")
    rates = [repr(float(k)) for k in network.rates]
    if global_rates and network.reactions:
        out.append("    <listOfParameters>\n")
        out += [
            f'      <parameter id="k{r}" value="{k}" constant="true"/>\n'
            for r, k in enumerate(rates)
        ]
        out.append("    </listOfParameters>\n")
    if network.reactions:
        out.append("    <listOfReactions>\n")
    sides = (
        (
            "Reactants",
            network.reactant_offsets,
            network.reactant_species,
            network.reactant_coefficients,
        ),
        (
            "Products",
            network.product_offsets,
            network.product_species,
            network.product_coefficients,
        ),
    )
    for r in range(network.reactions):
        out.append(f'      <reaction id="r{r}" reversible="false">\n')
        for side, offsets, species_of, coefficients in sides:
            members = range(offsets[r], offsets[r + 1])
            if len(members):
                out.append(f"        <listOf{side}>\n")
                out += [
                    f'          <speciesReference species="s{species_of[e]}" '
                    f'stoichiometry="{coefficients[e]}" constant="true"/>\n'
                    for e in members
                ]
                out.append(f"        </listOf{side}>\n")
        factors = [f"<ci> {rate_of(r)} </ci>"]
        for e in range(network.reactant_offsets[r], network.reactant_offsets[r + 1]):
            species = f"<ci> s{network.reactant_species[e]} </ci>"
            power = int(network.reactant_coefficients[e])
            factors.append(
                species
                if power == 1
                else f'<apply><power/>{species}<cn type="integer"> {power} </cn></apply>'
            )
        law = factors[0] if len(factors) == 1 else f"<apply><times/>{''.join(factors)}</apply>"
        local = (
            ""
            if global_rates
            else "\n          <listOfLocalParameters>\n"
            f'            <localParameter id="k" value="{rates[r]}"/>\n'
            "          </listOfLocalParameters>"
        )
        out.append(
            "        <kineticLaw>\n"
            f'          <math xmlns="{MATHML}">{law}</math>{local}\n'
            "        </kineticLaw>\n"
            "      </reaction>\n"
        )
    if network.reactions:
        out.append("    </listOfReactions>\n")
    out.append("  </model>\n</sbml>\n")
    return "".join(out)


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
