"""The process `crn.roadrunner` runs libRoadRunner in (`python -m` this module, started by
`RoadRunnerBackend`): it keeps the compiled models and answers requests over a socket.

A process of its own because libRoadRunner's compiled models can bring a process down: it
segfaults building any model in a process that loaded NEURON first (neuron 9.0,
libroadrunner 2.10), and its LLJIT backend — which compiles 3.4x faster than the default
MCJIT at optimisation level 0 — crashed in a test process beside JAX's and numba's LLVMs.
Here it shares the process with nothing but numpy, and a crash ends this process, which
the backend reports as an error, not the user's run.

Requests are `(operation, key, arguments)` tuples; each gets `("ok", value)` or
`("error", "Type: message")`. `key` names a loaded model (the backend's digest of the
network's structure and whether conserved moieties are on).
"""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np


@dataclass
class Model:
    """A compiled model whose rate constants are the global parameters at `slots` of its
    parameter values; order: the network's species index of each floating species."""

    runner: Any
    slots: np.ndarray
    order: np.ndarray


def load(
    models: dict[Any, Model],
    key: Any,
    sbml: str,
    reactions: int,
    moieties: bool,
    relative_tolerance: float,
    absolute_tolerance: float,
) -> None:
    """Compile `sbml` (rate constants as global parameters k0 … k{reactions - 1}) and keep
    it under `key`."""
    import roadrunner

    options = roadrunner.LoadSBMLOptions()
    options.conservedMoieties = moieties
    runner = roadrunner.RoadRunner(sbml, options)
    integrator = runner.getIntegrator()
    integrator.setValue("relative_tolerance", relative_tolerance)
    integrator.setValue("absolute_tolerance", absolute_tolerance)
    order = np.array([int(s[1:]) for s in runner.model.getFloatingSpeciesIds()])
    position = {p: i for i, p in enumerate(runner.model.getGlobalParameterIds())}
    slots = np.array([position[f"k{r}"] for r in range(reactions)], dtype=int)
    models[key] = Model(runner, slots, order)


def drop(models: dict[Any, Model], key: Any) -> None:
    models.pop(key, None)


def prepare(models: dict[Any, Model], key: Any, rates: np.ndarray, initial: np.ndarray) -> None:
    """Set the rate constants and initial concentrations (network order), then reset the
    model (state to the initial values; conserved totals recomputed)."""
    kept = models[key]
    model = kept.runner.model
    values = np.array(model.getGlobalParameterValues())
    values[kept.slots] = rates
    model.setGlobalParameterValues(values)
    model.setFloatingSpeciesInitConcentrations(initial[kept.order])
    kept.runner.reset()


def simulate(models: dict[Any, Model], key: Any, times: list[float]) -> np.ndarray:
    """Concentrations at `times` (rows) of every species in network order (columns)."""
    kept = models[key]
    kept.runner.timeCourseSelections = [f"[s{i}]" for i in range(len(kept.order))]
    return np.asarray(kept.runner.simulate(times=times))


def presimulate(models: dict[Any, Model], key: Any, duration: float) -> None:
    models[key].runner.simulate(0, duration, 2)


def steady(models: dict[Any, Model], key: Any) -> np.ndarray:
    """NLEQ2 from the model's current state; the concentrations in network order."""
    kept = models[key]
    kept.runner.steadyState()
    x = np.empty(len(kept.order))
    x[kept.order] = kept.runner.model.getFloatingSpeciesConcentrations()
    return x


OPERATIONS = {f.__name__: f for f in (load, drop, prepare, simulate, presimulate, steady)}


def serve(channel: Connection, jit_optimization: int) -> None:
    """Answer requests until the backend closes its end of the socket."""
    import roadrunner

    config = roadrunner.Config
    config.setValue(config.LLVM_BACKEND, config.LLJIT)
    config.setValue(config.LLJIT_OPTIMIZATION_LEVEL, jit_optimization)
    # attributes per species, reaction and stoichiometry entry, which nothing here reads:
    # building them was a fifth of alarm's reduced CRN's load (6.5 s → 5.2 s without)
    config.setValue(config.ROADRUNNER_DISABLE_PYTHON_DYNAMIC_PROPERTIES, True)
    models: dict[Any, Model] = {}
    while True:
        try:
            operation, key, arguments = channel.recv()
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", OPERATIONS[operation](models, key, *arguments))
        except Exception as error:  # libRoadRunner's RuntimeErrors, said to the backend
            reply = ("error", f"{type(error).__name__}: {error}")
        channel.send(reply)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a stop is the backend's to make
    serve(Connection(int(sys.argv[1])), int(sys.argv[2]))
