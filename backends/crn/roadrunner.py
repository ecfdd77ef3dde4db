"""`crn.roadrunner`: the network exported to SBML and run by libRoadRunner (LLVM-compiled
model; CVODE trajectories; steady state by NLEQ2 with conserved-moiety analysis, which the
one-conservation-law-per-message structure of Napp–Adams CRNs needs). Loading is
libRoadRunner's LLVM compilation and grows faster than linearly with the reactions: about
12 s for 2,000 reactions on two cores, minutes for 6,000 (shared/notes/crn.md §6.3) — so a
loaded model is kept and reused for later calls on a network of the same structure (see
`RoadRunnerBackend`)."""

from __future__ import annotations

import hashlib
import sys
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field

from ...errors import BackendUnavailableError
from ..base import BackendOptions
from .base import CRNBackend, CRNCapabilities, NoSteadyStateError, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork


NEURON_FIRST = (
    "NEURON was loaded in this process before libRoadRunner, which then crashes building "
    "any model (a segmentation fault; neuron 9.0, libroadrunner 2.10): import roadrunner "
    "before neuron, or run the CRN work in a process of its own"
)
"""Why a libRoadRunner load is refused when NEURON was imported first (otherwise a crash,
not an error: importing roadrunner after neuron is not enough, it must come before)."""


def _loaded_before(first: str, second: str) -> bool:
    """Whether module `first` was imported in this process and `second` after it or not
    yet (sys.modules keeps the order modules were first imported in)."""
    order = {name: k for k, name in enumerate(sys.modules) if name in (first, second)}
    return first in order and order[first] < order.get(second, len(sys.modules))


class RoadRunnerOptions(BackendOptions):
    """presimulation_time: simulated before the steady-state solve (picks the basin the
    trajectory from the initial state reaches); relative_tolerance, absolute_tolerance:
    CVODE's."""

    presimulation_time: float = Field(200.0, ge=0)
    relative_tolerance: float = Field(1e-10, gt=0)
    absolute_tolerance: float = Field(1e-14, gt=0)


@dataclass
class _Loaded:
    """A compiled model whose rate constants are the global parameters at `slots` of its
    parameter values; order: the network's species index of each floating species."""

    runner: Any
    slots: np.ndarray
    order: np.ndarray


KEPT = 2
"""Compiled models a backend keeps (a validation alternates two networks: original, reduced)."""
REFINEMENTS = 2
"""Further NLEQ2 solves from the point the last one stopped at when it is not yet at rest
to the asked tolerance (insurance's 11,109 reactions: 1.1e-13 after the first, 2.9e-16
after the second)."""


class RoadRunnerBackend(CRNBackend):
    """libRoadRunner on the SBML export of the network.

    One compiled model per network structure (species and reactions) serves every call:
    steady states, trajectories and the perturbed rate sets of a robustness check. Its rate
    constants are global parameters, set per call with the initial concentrations, and the
    model reset (which recomputes the conserved totals). Such a model is about 1.6x slower
    to load than one with the rates compiled in (alarm's reduced CRN, 2,078 reactions: 27 s
    against 17 s), and saves the second load every rate change needed before (44 s in all).
    """

    name: ClassVar[str] = "crn.roadrunner"
    tier: ClassVar = "simulator"
    Options: ClassVar = RoadRunnerOptions
    requires: ClassVar = ("roadrunner", "libsbml")

    options: RoadRunnerOptions

    def __init__(self, options: BackendOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._loaded: OrderedDict[tuple[bytes, bool], _Loaded] = OrderedDict()
        self.loads = 0
        """Models compiled so far (each a libRoadRunner load)."""

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=False)

    def _prepared(self, network: ReactionNetwork, moieties: bool | None) -> _Loaded:
        """A compiled model of the network, reset to its initial concentrations and rates;
        with `moieties`, conserved-moiety analysis is part of the load (setting it afterwards
        compiles the model a second time); None: either (a trajectory runs on both, so it
        reuses the steady state's model rather than compiling another)."""
        structure = _structure(network)
        if moieties is None:
            moieties = (structure, True) in self._loaded
        key = (structure, moieties)
        loaded = self._loaded.get(key)
        if loaded is None:
            loaded = self._load(network, moieties)
            self._loaded[key] = loaded
            while len(self._loaded) > KEPT:
                self._loaded.popitem(last=False)
        self._loaded.move_to_end(key)
        model = loaded.runner.model
        values = np.array(model.getGlobalParameterValues())
        values[loaded.slots] = np.asarray(network.rates, dtype=float)
        model.setGlobalParameterValues(values)
        model.setFloatingSpeciesInitConcentrations(
            np.asarray(network.initial, dtype=float)[loaded.order]
        )
        loaded.runner.reset()  # state to the initial values; conserved totals recomputed
        return loaded

    def _load(self, network: ReactionNetwork, moieties: bool) -> _Loaded:
        if _loaded_before("neuron", "roadrunner"):
            raise BackendUnavailableError(self.name, "missing-package", NEURON_FIRST)
        import roadrunner

        from ...datasets.crn.sbml import to_sbml

        options = roadrunner.LoadSBMLOptions()
        options.conservedMoieties = moieties
        runner = roadrunner.RoadRunner(to_sbml(network, global_rates=True), options)
        self.loads += 1
        integrator = runner.getIntegrator()
        integrator.setValue("relative_tolerance", self.options.relative_tolerance)
        integrator.setValue("absolute_tolerance", self.options.absolute_tolerance)
        order = np.array([int(s[1:]) for s in runner.model.getFloatingSpeciesIds()])
        position = {p: i for i, p in enumerate(runner.model.getGlobalParameterIds())}
        slots = np.array([position[f"k{r}"] for r in range(network.reactions)], dtype=int)
        return _Loaded(runner, slots, order)

    @staticmethod
    def _ids(network: Any) -> list[str]:
        return [f"[s{i}]" for i in range(len(network.species))]

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        runner = self._prepared(network, moieties=None).runner
        runner.timeCourseSelections = self._ids(network)
        result = runner.simulate(times=[float(t) for t in times])
        return np.asarray(result)

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        from .mass_action import largest_rate

        loaded = self._prepared(network, moieties=True)
        runner = loaded.runner
        if self.options.presimulation_time > 0:
            runner.simulate(0, self.options.presimulation_time, 2)
        x = np.empty(len(network.species))
        for _ in range(REFINEMENTS + 1):  # NLEQ2 again from where it stopped, if not at rest
            try:
                runner.steadyState()
            except RuntimeError as err:
                raise NoSteadyStateError(
                    f"crn.roadrunner: steady-state solver failed: {err}"
                ) from None
            x[loaded.order] = runner.model.getFloatingSpeciesConcentrations()
            speed = largest_rate(network, x)
            if speed < tolerance:
                break
        else:
            raise NoSteadyStateError(
                f"crn.roadrunner: steady state with max |dx/dt| = {speed:.2e} > {tolerance:g}",
                speed,
            )
        return SteadyState(x, self.options.presimulation_time, speed, verified=True)  # NLEQ2


def _structure(network: ReactionNetwork) -> bytes:
    """A digest of the network's species count and reactions (not rates or initial state)."""
    digest = hashlib.blake2b(str(len(network.species)).encode(), digest_size=16)
    for array in (
        network.reactant_offsets,
        network.reactant_species,
        network.reactant_coefficients,
        network.product_offsets,
        network.product_species,
        network.product_coefficients,
    ):
        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return digest.digest()
