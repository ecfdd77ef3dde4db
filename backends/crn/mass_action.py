"""Mass-action rates and their Jacobian on the CSR arrays of a ReactionNetwork (numba)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(cache=True)
def _rates(
    x: np.ndarray,
    offsets: np.ndarray,
    species: np.ndarray,
    coefficients: np.ndarray,
    constants: np.ndarray,
    out: np.ndarray,
) -> None:
    for r in range(len(constants)):
        value = constants[r]
        for e in range(offsets[r], offsets[r + 1]):
            value *= x[species[e]] ** coefficients[e]
        out[r] = value


@njit(cache=True)
def _rate_derivatives(
    x: np.ndarray,
    offsets: np.ndarray,
    species: np.ndarray,
    coefficients: np.ndarray,
    constants: np.ndarray,
    out: np.ndarray,
) -> None:
    for r in range(len(constants)):
        for e in range(offsets[r], offsets[r + 1]):
            value = constants[r] * coefficients[e] * x[species[e]] ** (coefficients[e] - 1)
            for f in range(offsets[r], offsets[r + 1]):
                if f != e:
                    value *= x[species[f]] ** coefficients[f]
            out[e] = value


class MassAction:
    """f(x) = N v(x) and its Jacobian N ∂v/∂x (scipy sparse) for one network."""

    def __init__(self, network: Any) -> None:
        from scipy.sparse import csr_matrix

        self.network = network
        self.stoichiometry = network.net_stoichiometry()
        self._v = np.empty(network.reactions)
        self._dv = np.empty(len(network.reactant_species))
        self._pattern = csr_matrix(
            (self._dv, network.reactant_species, network.reactant_offsets),
            shape=(network.reactions, len(network.species)),
        )

    def _arguments(self) -> tuple[np.ndarray, ...]:
        n = self.network
        return n.reactant_offsets, n.reactant_species, n.reactant_coefficients, n.rates

    def rates(self, x: np.ndarray) -> np.ndarray:
        _rates(np.asarray(x, dtype=float), *self._arguments(), self._v)
        return self._v

    def derivative(self, x: np.ndarray) -> np.ndarray:
        """dx/dt at x."""
        return self.stoichiometry @ self.rates(x)

    def jacobian(self, x: np.ndarray) -> Any:
        """∂(dx/dt)/∂x at x, sparse CSC."""
        _rate_derivatives(np.asarray(x, dtype=float), *self._arguments(), self._dv)
        self._pattern.data = self._dv
        return (self.stoichiometry @ self._pattern).tocsc()


def largest_rate(network: Any, x: np.ndarray) -> float:
    """max |dx/dt| at x: how far x is from a steady state (concentration per unit time)."""
    return float(np.abs(MassAction(network).derivative(x)).max(initial=0.0))
