"""`crn.roadrunner`: the network exported to SBML and run by libRoadRunner (LLVM-compiled
model; CVODE trajectories; steady state by NLEQ2 with conserved-moiety analysis, which the
one-conservation-law-per-message structure of Napp–Adams CRNs needs). Loading is
libRoadRunner's LLVM compilation and grows faster than linearly with the reactions: about
12 s for 2,000 reactions on two cores, minutes for 6,000 (shared/notes/crn.md §6.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field

from ..base import BackendOptions
from ..errors import SubstratesError
from .base import CRNBackend, CRNCapabilities, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork


class RoadRunnerOptions(BackendOptions):
    """presimulation_time: simulated before the steady-state solve (picks the basin the
    trajectory from the initial state reaches); relative_tolerance, absolute_tolerance:
    CVODE's."""

    presimulation_time: float = Field(200.0, ge=0)
    relative_tolerance: float = Field(1e-10, gt=0)
    absolute_tolerance: float = Field(1e-14, gt=0)


class RoadRunnerBackend(CRNBackend):
    """libRoadRunner on the SBML export of the network."""

    name: ClassVar[str] = "crn.roadrunner"
    tier: ClassVar = "simulator"
    Options: ClassVar = RoadRunnerOptions
    requires: ClassVar = ("roadrunner", "libsbml")

    options: RoadRunnerOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=False)

    def _runner(self, network: Any, moieties: bool = False) -> Any:
        """The network compiled by libRoadRunner; with `moieties`, conserved-moiety analysis
        is part of the load (setting it afterwards compiles the model a second time)."""
        import roadrunner

        from ...datasets.crn.sbml import to_sbml

        options = roadrunner.LoadSBMLOptions()
        options.conservedMoieties = moieties
        runner = roadrunner.RoadRunner(to_sbml(network), options)
        integrator = runner.getIntegrator()
        integrator.setValue("relative_tolerance", self.options.relative_tolerance)
        integrator.setValue("absolute_tolerance", self.options.absolute_tolerance)
        return runner

    @staticmethod
    def _ids(network: Any) -> list[str]:
        return [f"[s{i}]" for i in range(len(network.species))]

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        runner = self._runner(network)
        runner.timeCourseSelections = self._ids(network)
        result = runner.simulate(times=[float(t) for t in times])
        return np.asarray(result)

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        from .mass_action import largest_rate

        runner = self._runner(network, moieties=True)
        if self.options.presimulation_time > 0:
            runner.simulate(0, self.options.presimulation_time, 2)
        try:
            runner.steadyState()
        except RuntimeError as err:
            raise SubstratesError(f"crn.roadrunner: steady-state solver failed: {err}") from None
        x = np.array([runner.getValue(name) for name in self._ids(network)])
        speed = largest_rate(network, x)
        if speed >= tolerance:
            raise SubstratesError(f"crn.roadrunner: steady state with max |dx/dt| = {speed:.2e} "
                                  f"> {tolerance:g}")  # fmt: skip
        return SteadyState(x, self.options.presimulation_time, speed)
