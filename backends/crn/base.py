"""The CRN interface: simulate a mass-action reaction network over time or to steady state."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

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
    there (concentration per unit time)."""

    concentrations: np.ndarray
    time: float
    residual: float


class CRNBackend(Backend):
    """Simulates a datasets.crn.reaction_network.ReactionNetwork (mass action)."""

    substrate: ClassVar[str] = "crn"
    extra: ClassVar[str] = "crn"

    @abstractmethod
    def simulate(self, network: Any, times: np.ndarray) -> np.ndarray:
        """Concentrations at `times` from network.initial: shape (len(times), species)."""

    @abstractmethod
    def steady_state(self, network: Any, tolerance: float = 1e-12) -> SteadyState:
        """Run from network.initial until max |dx/dt| < tolerance."""
