"""SBML export: `to_sbml` (the XML composed as text) against python-libsbml's object tree
(the document built element by element through libsbml's API and serialised by it, which
is how `to_sbml` worked until issue #45 found it was most of water's validation: 23 s and
4 GB of 46 s and 4.4 GB).

Per network (Napp–Adams CRNs compiled from pgmpy's BIF networks with the observations the
tests use): reactions, wall time and peak resident memory of each writer, each in a
forked process of its own (peak RSS includes the compiled network both start from), the
document's size, and the speed ratio. Before timing, both documents of the smaller
networks are read back with `read_sbml` and must give the same network (the script stops
otherwise): the ratio compares writers of one document.

    python benchmarks/crn_sbml.py [--docs]      # --smoke: Asia only, seconds
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from publish import published
from timing import arguments

from substrates.datasets.crn.reaction_network import ReactionNetwork
from substrates.datasets.crn.sbml import read_sbml, same_network, to_sbml
from substrates.models.crn.napp_adams import compile_graph
from substrates.models.crn.reductions import with_evidence

print = functools.partial(print, flush=True)  # rows appear as they are measured

CHECKED_UP_TO = 20_000
"""Reactions up to which both documents are read back and compared (read_sbml is slow)."""


def libsbml_tree(network: ReactionNetwork, model_id: str = "crn") -> str:
    """The anchor: the same document built through libsbml's object API (local rates)."""
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
    sides = (
        ("reactant", network.reactant_offsets, network.reactant_species),
        ("product", network.product_offsets, network.product_species),
    )
    for r in range(network.reactions):
        reaction = model.createReaction()
        reaction.setId(f"r{r}")
        reaction.setReversible(False)
        factors = ["k"]
        for side, offsets, species_of in sides:
            coefficients = getattr(network, f"{side}_coefficients")
            for e in range(offsets[r], offsets[r + 1]):
                reference = (
                    reaction.createReactant() if side == "reactant" else reaction.createProduct()
                )
                reference.setSpecies(f"s{species_of[e]}")
                reference.setStoichiometry(float(coefficients[e]))
                reference.setConstant(True)
                if side == "reactant":
                    power = int(coefficients[e])
                    factors.append(f"s{species_of[e]}" + (f"^{power}" if power > 1 else ""))
        law = reaction.createKineticLaw()
        rate = law.createLocalParameter()
        rate.setId("k")
        rate.setValue(float(network.rates[r]))
        law.setMath(libsbml.parseL3Formula(" * ".join(factors)))
    return str(libsbml.writeSBMLToString(document))


WRITERS = {"to_sbml (text)": to_sbml, "libsbml object tree": libsbml_tree}


def _measure(writer: str, network: ReactionNetwork, out: Any) -> None:
    start = time.perf_counter()
    text = WRITERS[writer](network)
    wall = time.perf_counter() - start
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    out.send((wall, peak_gb, len(text.encode())))


def measured(writer: str, network: ReactionNetwork) -> tuple[float, float, int]:
    """(wall s, peak RSS GB, document bytes) of one writer, in a forked process."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_measure, args=(writer, network, send))
    child.start()
    result: tuple[float, float, int] = receive.recv()
    child.join()
    return result


def same_document(network: ReactionNetwork) -> None:
    """Both writers' documents read back as `network`; the script stops otherwise."""
    with tempfile.TemporaryDirectory() as folder:
        for writer, write in WRITERS.items():
            path = Path(folder) / "crn.xml"
            path.write_text(write(network))
            if not same_network(read_sbml(path), network):
                sys.exit(f"{writer}: the document does not read back as the network")


def networks(smoke: bool) -> list[tuple[str, ReactionNetwork]]:
    from substrates.datasets.crn.bif import read_bif
    from substrates.testing.crn import PGMPY_EVIDENCE, evidence_indices, pgmpy_network

    out = []
    for name in ("asia",) if smoke else ("asia", "alarm", "insurance", "hailfinder", "water"):
        graph = read_bif(pgmpy_network(name))
        evidence = evidence_indices(graph, PGMPY_EVIDENCE.get(name, {}))
        shown = f"{name}, {len(evidence)} observed" if evidence else name
        out.append((shown, compile_graph(with_evidence(graph, evidence)).network))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    smoke = arguments(parser).smoke
    print(
        "| network (Napp–Adams CRN) | reactions | to_sbml s | libsbml tree s | ratio | "
        "to_sbml peak GB | libsbml tree peak GB | document MB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, network in networks(smoke):
        if network.reactions <= CHECKED_UP_TO:
            same_document(network)
        ours, theirs = measured("to_sbml (text)", network), measured("libsbml object tree", network)
        print(
            f"| {label} | {network.reactions:,} | {ours[0]:.2f} | {theirs[0]:.2f} | "
            f"{theirs[0] / ours[0]:.0f}x | {ours[1]:.2f} | {theirs[1]:.2f} | "
            f"{ours[2] / 1e6:.1f} |"
        )


if __name__ == "__main__":
    with published("crn_sbml"):
        main()
