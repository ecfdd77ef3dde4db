"""Catalytic reactions rewritten into elementary steps — at most two reactant molecules
each — with exactly the same steady states (towards a chemical implementation: DNA
strand-displacement compiles only uni- and bimolecular reactions).

A reaction C₁ + … + Cₙ + X → C₁ + … + Cₙ + Y at rate k (catalysts Cᵢ, one molecule X
converted to Y) needs n + 1 reactants. For each catalyst set {C₁ … Cₙ} (sorted, shared by
every reaction that uses it, prefixes shared too) product species are introduced,

    C₁ + C₂ → C₁ + C₂ + P₁₂          rate δ        P₁₂ → ∅       rate δ
    P₁₂ + C₃ → P₁₂ + C₃ + P₁₂₃       rate δ        P₁₂₃ → ∅      rate δ   …

so that dP/dt = δ(Π Cᵢ − P): at any steady state P equals the product of its catalysts
exactly, and the conversion P + X → P + Y at rate k has the original flux k·ΠCᵢ·X there.
The original species' steady-state equations are unchanged: the fixed points are the same
(P starts at its steady value). Only the approach to them differs, by a lag of order 1/δ.
Product species are produced and degraded, so they carry no conserved mass: no catalyst
or message molecule is ever consumed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...datasets.crn.reaction_network import NetworkBuilder, ReactionNetwork
from .errors import RewriteError


@dataclass(frozen=True)
class Elementary:
    """The rewritten network (original species first, in their order, then the product
    species) and how many product species and reactions were added."""

    network: ReactionNetwork
    products: int
    added_reactions: int


def elementary(network: ReactionNetwork, rate: float = 1.0) -> Elementary:
    """Rewrite every reaction with more than two reactant molecules; `rate` is δ, the
    production and degradation rate of the product species. Raises RewriteError for a
    reaction that converts more than one molecule (only catalysed conversions are
    rewritten).

    Example:
        >>> from substrates.models.crn.napp_adams import compile_graph
        >>> from substrates.datasets.crn.generators import chain
        >>> network = compile_graph(chain(4, 3, seed=0)).network
        >>> largest_molecularity(elementary(network).network)
        2
    """
    if not rate > 0:
        raise ValueError(f"the product species' rate must be > 0, got {rate}")
    build = NetworkBuilder()
    for name, start in zip(network.species, network.initial, strict=True):
        build.species(name, float(start))
    initial = np.asarray(network.initial, dtype=float)
    chains: dict[tuple[int, ...], int] = {}

    def product_of(catalysts: tuple[int, ...]) -> int:
        """The species equal to the product of `catalysts` (sorted, ≥ 2) at rest."""
        if catalysts in chains:
            return chains[catalysts]
        head = catalysts[:-1]
        first = head[0] if len(head) == 1 else product_of(head)
        names = "·".join(network.species[c] for c in catalysts)
        made = build.species(f"P[{names}]", float(np.prod(initial[list(catalysts)])))
        build.reaction([first, catalysts[-1]], [first, catalysts[-1], made], rate)
        build.reaction([made], [], rate)
        chains[catalysts] = made
        return made

    for r in range(network.reactions):
        reactants = _side(
            network.reactant_offsets, network.reactant_species, network.reactant_coefficients, r
        )
        products = _side(
            network.product_offsets, network.product_species, network.product_coefficients, r
        )
        if sum(reactants.values()) <= 2:
            build.reaction(_flat(reactants), _flat(products), float(network.rates[r]))
            continue
        catalysts = {s: min(n, products.get(s, 0)) for s, n in reactants.items()}
        consumed = {s: n - catalysts[s] for s, n in reactants.items() if n > catalysts[s]}
        made = {s: n - catalysts.get(s, 0) for s, n in products.items() if n > catalysts.get(s, 0)}
        if sum(consumed.values()) != 1:
            raise RewriteError(
                f"reaction {r} converts {sum(consumed.values())} molecules; only "
                "catalysed conversions of one molecule are rewritten"
            )
        key = tuple(sorted(_flat({s: n for s, n in catalysts.items() if n})))
        signal = key[0] if len(key) == 1 else product_of(key)
        build.reaction([signal, *_flat(consumed)], [signal, *_flat(made)], float(network.rates[r]))
    rewritten = build.build()
    return Elementary(rewritten, len(chains), rewritten.reactions - network.reactions)


def _side(
    offsets: np.ndarray, species: np.ndarray, coefficients: np.ndarray, r: int
) -> dict[int, int]:
    return {int(species[e]): int(coefficients[e]) for e in range(offsets[r], offsets[r + 1])}


def _flat(counts: dict[int, int]) -> list[int]:
    return [s for s, n in counts.items() for _ in range(n)]


def largest_molecularity(network: ReactionNetwork) -> int:
    """The most reactant molecules of any reaction."""
    running = np.concatenate([[0], np.cumsum(network.reactant_coefficients)])
    offsets = network.reactant_offsets
    return int((running[offsets[1:]] - running[offsets[:-1]]).max(initial=0))
