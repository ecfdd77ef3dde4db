"""`crn.ssa`: stochastic simulation at a chosen volume — exact (Gillespie's direct method in
its logarithmic form: a dependency graph and a sum tree, so an event costs O(log R) plus
the reactions it affects) or, with `method: tau_leap`, approximate tau-leaping
(`backends/crn/gillespie.py`).

Counts start at the initial concentrations times the volume, rounded. A reaction with
reactant coefficients ν fires with propensity k·V·Π_s n_s^(ν_s)/V^ν_s, n^(ν) the falling
factorial n(n−1)…(n−ν+1) (so homodimers are counted right). The steady state is the time
average of counts/V after a burn-in."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from pydantic import Field

from ..base import BackendOptions
from .base import CRNBackend, CRNCapabilities, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork


class SsaOptions(BackendOptions):
    """volume: molecules per unit concentration (error shrinks as 1/√volume); seed;
    burn_in, average: simulated time before and over which steady-state counts are averaged;
    method: `direct` (exact) or `tau_leap`; epsilon: tau-leaping's bound on the relative
    change of a reactant's count per leap (smaller: closer to exact, slower)."""

    method: Literal["direct", "tau_leap"] = "direct"
    epsilon: float = Field(0.03, gt=0, lt=1)
    volume: float = Field(1000.0, gt=0)
    seed: int = 0
    burn_in: float = Field(50.0, ge=0)
    average: float = Field(500.0, gt=0)


class SsaBackend(CRNBackend):
    """Exact Gillespie simulation of the network's molecule counts."""

    name: ClassVar[str] = "crn.ssa"
    tier: ClassVar = "simulator"
    Options: ClassVar = SsaOptions
    requires: ClassVar = ("numba",)

    options: SsaOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=True, batched=False)

    def _counts(self, network: ReactionNetwork) -> np.ndarray:
        return np.rint(np.asarray(network.initial) * self.options.volume).astype(np.int64)

    def _run(
        self, network: ReactionNetwork, t_end: float, t_average: float, times: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, int]:
        from .gillespie import dependencies, gillespie, net_changes

        record = np.zeros((len(times), len(network.species) + 1))
        record[:, 0] = times
        n = self._counts(network)
        reactant = (
            network.reactant_offsets,
            network.reactant_species,
            network.reactant_coefficients,
        )
        product = (network.product_offsets, network.product_species, network.product_coefficients)
        epsilon = self.options.epsilon if self.options.method == "tau_leap" else 0.0
        net = net_changes(reactant, product, len(network.species))
        events, integral = gillespie(
            n,
            reactant,
            product,
            np.asarray(network.rates, dtype=float),
            self.options.volume,
            t_end,
            t_average,
            record,
            self.options.seed,
            dependencies(reactant, net, len(network.species)),
            net,
            epsilon,
        )
        return record[:, 1:] / self.options.volume, integral, events

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        """Concentrations (counts / volume) of one trajectory at `times`."""
        states, _, _ = self._run(network, float(times[-1]), np.inf, times)
        return states

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        """Time-averaged concentrations over [burn_in, burn_in + average]; `residual` is
        max |dx/dt| of the deterministic rates there (a statistical, not a solver, error)."""
        from .mass_action import largest_rate

        o = self.options
        end = o.burn_in + o.average
        _, integral, _ = self._run(network, end, o.burn_in, np.empty(0))
        mean = integral / o.average / o.volume
        speed = largest_rate(network, mean)
        return SteadyState(mean, end, speed)
