"""`crn.ode`: deterministic mass action with a stiff solver (scipy BDF, Radau or LSODA) and
the analytic sparse Jacobian. Steady states by pseudo-transient continuation and Newton on
the conservation-reduced system (`backends/crn/steady.py`), or by integrating over doubling
horizons (`steady: integrate`, also the fallback when the continuation gives up)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from ...errors import SubstratesError
from ..base import BackendOptions
from .base import CRNBackend, CRNCapabilities, NoSteadyStateError, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork
    from .steady import Stall


class OdeOptions(BackendOptions):
    """method: scipy's stiff integrator; rtol, atol: its tolerances (atol in concentration);
    max_time: give up on a steady state after this much simulated time; steady: how steady
    states are found — `continuation` (pseudo-transient continuation then Newton; its
    reported time is the continuation's pseudo-time) or `integrate` (the trajectory itself,
    slower, with the time it takes to settle)."""

    method: Literal["BDF", "Radau", "LSODA"] = "BDF"
    steady: Literal["continuation", "integrate"] = "continuation"
    rtol: float = Field(1e-10, gt=0, lt=1)
    atol: float = Field(1e-14, gt=0)
    max_time: float = Field(1e7, gt=0)


class OdeBackend(CRNBackend):
    """Integrates dx/dt = N v(x) with the Jacobian N ∂v/∂x built from the network."""

    name: ClassVar[str] = "crn.ode"
    tier: ClassVar = "simulator"
    Options: ClassVar = OdeOptions
    requires: ClassVar = ("scipy", "numba")

    options: OdeOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=False)

    def _solve(
        self,
        model: Any,
        start: np.ndarray,
        span: tuple[float, float],
        times: np.ndarray | None = None,
    ) -> Any:
        """Integrate `model` (a MassAction) from `start` over `span`."""
        from scipy.integrate import solve_ivp

        solution = solve_ivp(
            lambda _, x: model.derivative(x),
            span,
            start,
            method=self.options.method,
            jac=lambda _, x: model.jacobian(x),
            rtol=self.options.rtol,
            atol=self.options.atol,
            t_eval=times,
        )
        if not solution.success:
            raise SubstratesError(
                f"crn.ode: the {self.options.method} solver failed: {solution.message}"
            )
        return solution

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        from .mass_action import MassAction

        times = np.asarray(times, dtype=float)
        solution = self._solve(MassAction(network), network.initial, (0.0, times[-1]), times)
        return solution.y.T

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        """Continuation and Newton, or (`steady: integrate`, or when the continuation gives
        up) integration over doubling horizons, until max |dx/dt| < tolerance."""
        from .mass_action import MassAction
        from .steady import Rest, Stall, steady_state

        model = MassAction(network)  # built once: stoichiometry and Jacobian pattern
        start = np.asarray(network.initial, dtype=float)
        if self.options.steady == "continuation":
            found = steady_state(model, start, tolerance)
            if isinstance(found, Rest):
                return SteadyState(found.x, found.time, found.residual, found.verified)
            if isinstance(found, Stall):
                self._explain(found, tolerance)
        x, elapsed, horizon = start, 0.0, 10.0
        while True:
            solution = self._solve(model, x, (0.0, horizon))
            x, elapsed = solution.y[:, -1], elapsed + horizon
            speed = float(np.abs(model.derivative(x)).max(initial=0.0))
            if speed < tolerance:
                return SteadyState(x, elapsed, speed)
            if elapsed >= self.options.max_time:
                raise NoSteadyStateError(
                    f"crn.ode: no steady state by t = {elapsed:g} (max |dx/dt| = {speed:.2e} "
                    f"> {tolerance:g}); raise max_time or loosen the tolerance",
                    speed,
                )
            horizon *= 2

    def _explain(self, stall: Stall, tolerance: float) -> None:
        """Raise NoSteadyStateError saying why, where integrating from the continuation's
        stall would not reach the rest either (round-off at the rest, creeping at the
        longest step, a slow mode beyond max_time); return where it might."""
        from .steady import CREEP_STEPS, LONGEST_STEP, REST_STEP

        at = f"max |dx/dt| = {stall.residual:.2e} > {tolerance:g}"
        if stall.distance is not None and stall.distance <= REST_STEP:
            raise NoSteadyStateError(
                f"crn.ode: no steady state to {tolerance:g}: max |dx/dt| stays at "
                f"{stall.residual:.2e} where Newton's step is {stall.distance:.1e} long — "
                "round-off at the rest; loosen the tolerance",
                stall.residual,
            )
        if stall.creeping:  # before the slow mode: a creeping Newton step can be 1e46 long
            length = "singular" if stall.distance is None else f"{stall.distance:.2g} long"
            raise NoSteadyStateError(
                f"crn.ode: no steady state: the continuation creeps at its longest step "
                f"({at}, not fallen tenfold in {CREEP_STEPS} steps of {LONGEST_STEP:g} "
                f"time units; Newton's step from there {length}): a rest that is not "
                "isolated, or modes too slow for any simulation to reach; loosen the "
                "tolerance",
                stall.residual,
            )
        if stall.distance is not None and stall.time_left > self.options.max_time:
            raise NoSteadyStateError(
                f"crn.ode: no steady state: the continuation stalls in a slow mode ({at}, "
                f"with Newton's step from there {stall.distance:.2g} long: about "
                f"{stall.time_left:.1e} time units at that speed, beyond max_time "
                f"{self.options.max_time:g}); raise max_time or loosen the tolerance",
                stall.residual,
            )
