"""The CRN interface: simulate a mass-action reaction network over time or to steady state.

Public methods validate the request, then call the implementation's `_simulate` or
`_steady_state`; a backend implements only those and `capabilities`.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...datasets.crn.reaction_network import ReactionNetwork
from ...errors import CapabilityError, SubstratesError
from ..base import Backend, Capabilities


@dataclass(frozen=True)
class CRNCapabilities(Capabilities):
    """stochastic: trajectories are samples (counts at a volume), not concentrations;
    batched: many initial conditions or rate sets in one call."""

    stochastic: bool
    batched: bool


@dataclass(frozen=True)
class SteadyState:
    """concentrations at rest; time: simulated time to get there; residual: max |dx/dt|
    there (concentration per unit time); verified: a Newton solve confirmed it is the rest
    (the distance left below 1e-9), not only that it moves slowly."""

    concentrations: np.ndarray
    time: float
    residual: float
    verified: bool = False


class NoSteadyStateError(SubstratesError):
    """A simulator that did not bring a network to rest within its limits; `residual`: the
    max |dx/dt| where it stopped (concentration per time unit; NaN when unknown)."""

    def __init__(self, message: str, residual: float = float("nan")) -> None:
        super().__init__(message)
        self.residual = residual


class CRNBackend(Backend):
    """Simulates a ReactionNetwork (mass action) from its initial concentrations."""

    substrate: ClassVar[str] = "crn"
    extra: ClassVar[str] = "crn"

    @property
    @abstractmethod
    def capabilities(self) -> CRNCapabilities: ...

    def validate(
        self,
        network: ReactionNetwork,
        *,
        times: np.ndarray | None = None,
        tolerance: float | None = None,
    ) -> None:
        """Raise CapabilityError if the network or the request cannot be simulated: an
        initial state of the wrong length or with negative or non-finite concentrations,
        negative or non-finite rates, reactions naming unknown species, times that are not
        finite, non-negative and increasing, a tolerance ≤ 0. (A network without species is
        simulated, trivially: what it means to validate nothing is the method's to say.)"""
        species = len(network.species)
        initial = np.asarray(network.initial)
        if initial.shape != (species,):
            raise CapabilityError(f"{species} species but {initial.size} initial values")
        if not np.isfinite(initial).all() or (initial < 0).any():
            raise CapabilityError("initial concentrations must be finite and ≥ 0")
        rates = np.asarray(network.rates)
        if not np.isfinite(rates).all() or (rates < 0).any():
            raise CapabilityError("rate constants must be finite and ≥ 0")
        for members in (network.reactant_species, network.product_species):
            if len(members) and (members.min() < 0 or members.max() >= species):
                raise CapabilityError("a reaction names a species the network does not have")
        if times is not None:
            times = np.asarray(times)
            if times.ndim != 1 or len(times) == 0 or not np.isfinite(times).all():
                raise CapabilityError("times must be a non-empty 1-D array of finite values")
            if times[0] < 0 or (np.diff(times) <= 0).any():
                raise CapabilityError("times must be ≥ 0 and strictly increasing")
        if tolerance is not None and not tolerance > 0:
            raise CapabilityError(f"the steady-state tolerance must be > 0, got {tolerance}")

    def simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        """Concentrations at `times` from network.initial: shape (len(times), species)."""
        times = np.asarray(times, dtype=float)
        self.validate(network, times=times)
        return self._simulate(network, times)

    def steady_state(self, network: ReactionNetwork, tolerance: float = 1e-12) -> SteadyState:
        """Run from network.initial until max |dx/dt| < tolerance."""
        self.validate(network, tolerance=tolerance)
        return self._steady_state(network, tolerance)

    @abstractmethod
    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState: ...
