"""Mass-action reaction networks as flat arrays: per reaction, its reactants and products
(species index, stoichiometric coefficient) in CSR layout, and its rate constant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csc_matrix


@dataclass(frozen=True)
class ReactionNetwork:
    """species: names; reactant_*/product_*: CSR arrays over reactions (offsets of length
    reactions + 1); rates: mass-action constants; initial: concentrations at t = 0."""

    species: tuple[str, ...]
    reactant_offsets: np.ndarray
    reactant_species: np.ndarray
    reactant_coefficients: np.ndarray
    product_offsets: np.ndarray
    product_species: np.ndarray
    product_coefficients: np.ndarray
    rates: np.ndarray
    initial: np.ndarray

    @property
    def reactions(self) -> int:
        return len(self.rates)

    def net_stoichiometry(self) -> csc_matrix:
        """N (species × reactions), scipy CSC: products minus reactants."""
        from scipy.sparse import csc_matrix

        def matrix(
            offsets: np.ndarray, species: np.ndarray, coefficients: np.ndarray
        ) -> csc_matrix:
            return csc_matrix(
                (coefficients.astype(float), species, offsets),
                shape=(len(self.species), self.reactions),
            )

        produced = matrix(self.product_offsets, self.product_species, self.product_coefficients)
        consumed = matrix(self.reactant_offsets, self.reactant_species, self.reactant_coefficients)
        return (produced - consumed).tocsc()


class NetworkBuilder:
    """Collects species and reactions, then freezes them into a ReactionNetwork."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.initial: list[float] = []
        self.sides: dict[str, list[list[tuple[int, int]]]] = {"reactants": [], "products": []}
        self.rates: list[float] = []

    def species(self, name: str, initial: float) -> int:
        if name in self.index:
            raise ValueError(f"species {name!r} added twice")
        self.index[name] = len(self.names)
        self.names.append(name)
        self.initial.append(initial)
        return self.index[name]

    def reaction(self, reactants: Sequence[int], products: Sequence[int], rate: float) -> None:
        """Reactants and products as species indices (a repeated index is a coefficient)."""
        for side, members in (("reactants", reactants), ("products", products)):
            counts: dict[int, int] = {}
            for s in members:
                counts[s] = counts.get(s, 0) + 1
            self.sides[side].append(sorted(counts.items()))
        self.rates.append(float(rate))

    def build(self) -> ReactionNetwork:
        def csr(rows: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            offsets = np.zeros(len(rows) + 1, dtype=np.int64)
            offsets[1:] = np.cumsum([len(r) for r in rows])
            flat = [pair for row in rows for pair in row]
            species = np.array([s for s, _ in flat], dtype=np.int64)
            return offsets, species, np.array([c for _, c in flat], dtype=np.int64)

        return ReactionNetwork(
            tuple(self.names),
            *csr(self.sides["reactants"]),
            *csr(self.sides["products"]),
            np.array(self.rates),
            np.array(self.initial),
        )
