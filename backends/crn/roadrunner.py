"""`crn.roadrunner`: the network exported to SBML and run by libRoadRunner (LLVM-compiled
model; CVODE trajectories; steady state by NLEQ2 with conserved-moiety analysis, which the
one-conservation-law-per-message structure of Napp–Adams CRNs needs). Loading is
libRoadRunner's LLVM compilation and its conserved-moiety QR, and grows faster than
linearly with the reactions: on two cores, with LLJIT at optimisation level 0, 5.2 s for
alarm's reduced CRN (2,078 reactions; 22 s with libRoadRunner's default MCJIT), 21 s for
insurance's (4,314) and 166 s for its original (11,109) — so a loaded model is kept and
reused for later calls on a network of the same structure (see `RoadRunnerBackend`).
libRoadRunner runs in a process of its own (`roadrunner_process`): a crash there is an
error here, and NEURON, which makes it segfault in a shared process, is no concern."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field

from ...errors import SubstratesError
from ..base import BackendOptions
from .base import CRNBackend, CRNCapabilities, NoSteadyStateError, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork


class RoadRunnerError(SubstratesError, RuntimeError):
    """libRoadRunner refused a request (`reason`: its message), or its process ended while
    serving one (`crashed`: a segfault or other signal, or an exit)."""

    def __init__(self, reason: str, *, crashed: bool = False) -> None:
        super().__init__(f"crn.roadrunner: {reason}")
        self.reason = reason
        self.crashed = crashed


class RoadRunnerOptions(BackendOptions):
    """presimulation_time: simulated before the steady-state solve (picks the basin the
    trajectory from the initial state reaches); relative_tolerance, absolute_tolerance:
    CVODE's; jit_optimization: the LLVM optimisation level (0–3) libRoadRunner's LLJIT
    compiles models at. Compiling dominates on large CRNs: at level 0 alarm's reduced CRN
    (2,078 reactions) loads in 5.2 s where libRoadRunner's default (MCJIT) takes 22 s, and
    its steady state is as fast (0.033 s)."""

    presimulation_time: float = Field(200.0, ge=0)
    relative_tolerance: float = Field(1e-10, gt=0)
    absolute_tolerance: float = Field(1e-14, gt=0)
    jit_optimization: int = Field(0, ge=0, le=3)


KEPT = 2
"""Compiled models a backend keeps (a validation alternates two networks: original, reduced)."""
REFINEMENTS = 2
"""Further NLEQ2 solves from the point the last one stopped at when it is not yet at rest
to the asked tolerance (insurance's 11,109 reactions: 1.1e-13 after the first, 2.9e-16
after the second)."""


class _Process:
    """libRoadRunner's process (`python -m ...roadrunner_process`), over a socket pair."""

    def __init__(self, jit_optimization: int) -> None:
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    f"{__package__}.roadrunner_process",
                    str(theirs.fileno()),
                    str(jit_optimization),
                ],
                pass_fds=[theirs.fileno()],
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )  # this process's module path, as multiprocessing gives a spawned child
        self.channel = Connection(ours.detach())

    def call(self, operation: str, key: tuple[bytes, bool] | None, *arguments: Any) -> Any:
        try:
            self.channel.send((operation, key, arguments))
            status, value = self.channel.recv()
        except (EOFError, OSError):
            code = self.process.wait()
            how = f"signal {-code}" if code < 0 else f"exit status {code}"
            raise RoadRunnerError(
                f"libRoadRunner's process ended ({how}) during '{operation}'; "
                "the next call starts a new one",
                crashed=True,
            ) from None
        if status == "error":
            raise RoadRunnerError(f"libRoadRunner: {value}")
        return value

    def close(self) -> None:
        """Close the socket (the process then returns) and wait for it; kill a stuck one."""
        self.channel.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class RoadRunnerBackend(CRNBackend):
    """libRoadRunner on the SBML export of the network, in a process of its own.

    One compiled model per network structure (species and reactions) serves every call:
    steady states, trajectories and the perturbed rate sets of a robustness check. Its rate
    constants are global parameters, set per call with the initial concentrations, and the
    model reset (which recomputes the conserved totals). Such a model is about 1.6x slower
    to load than one with the rates compiled in (alarm's reduced CRN, 2,078 reactions: 27 s
    against 17 s, both MCJIT), and saves the second load every rate change needed before.
    The process starts with the first load and ends with the backend; a crash there
    raises `RoadRunnerError` and the next call starts a fresh one.
    """

    name: ClassVar[str] = "crn.roadrunner"
    tier: ClassVar = "simulator"
    Options: ClassVar = RoadRunnerOptions
    requires: ClassVar = ("roadrunner", "libsbml")

    options: RoadRunnerOptions

    def __init__(self, options: BackendOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._loaded: OrderedDict[tuple[bytes, bool], None] = OrderedDict()
        self._process: _Process | None = None
        self.loads = 0
        """Models compiled so far (each a libRoadRunner load)."""

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=False)

    def _call(self, operation: str, key: tuple[bytes, bool] | None, *arguments: Any) -> Any:
        """One request to libRoadRunner's process, started if need be; after a crash the
        models it held are gone, so none is counted as loaded."""
        if self._process is None:
            self._process = _Process(self.options.jit_optimization)
            weakref.finalize(self, self._process.close)
        try:
            return self._process.call(operation, key, *arguments)
        except RoadRunnerError as error:
            if error.crashed:
                self._process, self._loaded = None, OrderedDict()
            raise

    def _prepared(self, network: ReactionNetwork, moieties: bool | None) -> tuple[bytes, bool]:
        """The key of a compiled model of the network, reset to its initial concentrations
        and rates; with `moieties`, conserved-moiety analysis is part of the load (setting
        it afterwards compiles the model a second time); None: either (a trajectory runs on
        both, so it reuses the steady state's model rather than compiling another)."""
        from ...datasets.crn.sbml import to_sbml

        structure = _structure(network)
        if moieties is None:
            moieties = (structure, True) in self._loaded
        key = (structure, moieties)
        if key not in self._loaded:
            sbml = to_sbml(network, global_rates=True)
            options = self.options
            tolerances = (options.relative_tolerance, options.absolute_tolerance)
            self._call("load", key, sbml, network.reactions, moieties, *tolerances)
            self.loads += 1
            self._loaded[key] = None
            while len(self._loaded) > KEPT:
                self._call("drop", self._loaded.popitem(last=False)[0])
        self._loaded.move_to_end(key)
        rates = np.asarray(network.rates, dtype=float)
        self._call("prepare", key, rates, np.asarray(network.initial, dtype=float))
        return key

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        key = self._prepared(network, moieties=None)
        return np.asarray(self._call("simulate", key, [float(t) for t in times]))

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        from .mass_action import largest_rate

        key = self._prepared(network, moieties=True)
        if self.options.presimulation_time > 0:
            self._call("presimulate", key, self.options.presimulation_time)
        for _ in range(REFINEMENTS + 1):  # NLEQ2 again from where it stopped, if not at rest
            try:
                x = self._call("steady", key)
            except RoadRunnerError as error:
                if error.crashed:  # not the solver's answer
                    raise
                raise NoSteadyStateError(
                    f"crn.roadrunner: steady-state solver failed: {error.reason}"
                ) from None
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
