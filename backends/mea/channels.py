"""Hodgkin–Huxley channels at a temperature: jaxley's HH (the squid-axon rates of
Hodgkin & Huxley 1952, defined at 6.3 °C) with every gate rate multiplied by
q10^((celsius − 6.3) / 10), q10 = 3, as NEURON's `hh` mechanism does."""

from __future__ import annotations

from typing import Any

from jaxley.channels import HH
from jaxley.solver_gate import solve_gate_exponential

Q10 = 3.0
REFERENCE_CELSIUS = 6.3


class TemperatureHH(HH):
    """HH whose gates run faster by q10^((celsius − 6.3)/10); its names stay HH_*."""

    def __init__(self, celsius: float) -> None:
        super().__init__("HH")
        self.celsius = celsius
        self.rate_factor = Q10 ** ((celsius - REFERENCE_CELSIUS) / 10)

    def update_states(
        self, states: dict[str, Any], dt: float, v: Any, params: dict[str, Any]
    ) -> dict[str, Any]:
        prefix, k = self._name, self.rate_factor
        gates = {"m": self.m_gate, "h": self.h_gate, "n": self.n_gate}
        return {
            f"{prefix}_{g}": solve_gate_exponential(
                states[f"{prefix}_{g}"], dt, *(k * r for r in rates(v))
            )
            for g, rates in gates.items()
        }
