"""`crn.torch`: mass action for many initial conditions or rate sets at once, in torch on the
CPU or a CUDA GPU.

Rates: every reaction's reactants padded to the network's largest molecularity (the pad
points at a constant 1), v = k·Π x^ν. Steady states: pseudo-transient continuation — one
linearly implicit Euler step (I − hJ)Δ = h f per iteration, with J = N ∂v/∂x from
prefix/suffix products (exact where concentrations vanish), h multiplied after each
accepted step by the fall of the residual, clamped to [2, 10] (switched evolution relaxation
with a floor: Napp–Adams steady states under evidence sit on the boundary, where the residual
falls slowly and plain SER needs ~300 steps instead of ~20); steps that leave the positive
orthant by more than 1e-10 are refused, smaller excursions clipped.
Each step adds h(I − hJ)⁻¹f ∈ range(N), so conserved quantities stay conserved. Trajectories:
the Dormand–Prince 5(4) pair with one adaptive step for the batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from ..base import BackendOptions, Tier
from ..gpu import TorchDeviceOption
from .base import CRNBackend, CRNCapabilities, NoSteadyStateError, SteadyState

if TYPE_CHECKING:
    from ...datasets.crn.reaction_network import ReactionNetwork


class TorchOptions(BackendOptions):
    """device: cpu or cuda; dtype: float64 or float32; rtol, atol: trajectory tolerances;
    max_iterations: pseudo-transient steps before a steady-state search gives up."""

    device: Literal["cpu", "cuda"] = "cpu"
    dtype: Literal["float64", "float32"] = "float64"
    rtol: float = Field(1e-8, gt=0, lt=1)
    atol: float = Field(1e-12, gt=0)
    max_iterations: int = Field(2000, ge=10)


class MassActionTorch:
    """f(x) and J(x) for a batch of states x (batch, species) of one network; `rates` may
    be one vector or one per batch row."""

    def __init__(self, network: Any, dtype: Any, device: str) -> None:
        import torch

        offsets = network.reactant_offsets
        width = int(np.diff(offsets).max(initial=0)) or 1
        pad = len(network.species)  # index of the constant 1
        index = np.full((network.reactions, width), pad, dtype=np.int64)
        power = np.zeros((network.reactions, width))
        for r in range(network.reactions):
            members = slice(offsets[r], offsets[r + 1])
            count = offsets[r + 1] - offsets[r]
            index[r, :count] = network.reactant_species[members]
            power[r, :count] = network.reactant_coefficients[members]
        self.index = torch.as_tensor(index, device=device)
        self.power = torch.as_tensor(power, dtype=dtype, device=device)
        n = network.net_stoichiometry().tocoo()  # species × reactions, about 2 entries a column
        self.n_species = torch.as_tensor(n.row.astype(np.int64), device=device)
        self.n_reaction = torch.as_tensor(n.col.astype(np.int64), device=device)
        self.n_value = torch.as_tensor(n.data, dtype=dtype, device=device)
        # J[s, t] += N[s, r] ∂v_r/∂x_t for every entry (s, r) of N and reactant slot (r, t)
        slots = index[n.col]  # (entries, width): the species each slot of reaction r reads
        self.j_target = torch.as_tensor(n.row[:, None] * (pad + 1) + slots, device=device)
        self.rates = torch.as_tensor(network.rates, dtype=dtype, device=device)
        self.species = pad

    def _terms(self, x: Any) -> Any:
        import torch

        ones = torch.ones_like(x[:, :1])
        padded = torch.cat([x, ones], dim=1)
        return padded[:, self.index] ** self.power  # (batch, reactions, width)

    def derivative(self, x: Any, rates: Any = None) -> Any:
        """dx/dt for each row of x (batch, species): N v(x), N applied entry by entry."""
        k = self.rates if rates is None else rates
        v = k * self._terms(x).prod(dim=-1)
        out = x.new_zeros(v.shape[0], x.shape[1])
        out.index_add_(1, self.n_species, v[:, self.n_reaction] * self.n_value)
        return out

    def jacobian(self, x: Any, rates: Any = None) -> Any:
        """∂(dx/dt)/∂x for each row (batch, species, species), dense, assembled by scatter
        from the entries of N and ∂v/∂x (prefix/suffix products: exact at zeros)."""
        import torch

        k = self.rates if rates is None else rates
        terms = self._terms(x)
        before = torch.cumprod(
            torch.cat([torch.ones_like(terms[..., :1]), terms[..., :-1]], -1), -1
        )
        after = torch.flip(
            torch.cumprod(
                torch.flip(torch.cat([terms[..., 1:], torch.ones_like(terms[..., :1])], -1), [-1]),
                -1,
            ),
            [-1],
        )
        padded = torch.cat([x, torch.ones_like(x[:, :1])], dim=1)
        base = padded[:, self.index]
        own = torch.where(self.power > 0, self.power * base ** (self.power - 1), 0.0)
        d = (k[..., None] if k.dim() > 1 else k[:, None]) * before * after * own
        values = d[:, self.n_reaction] * self.n_value[:, None]  # (batch, entries, width)
        batch = values.shape[0]
        flat = x.new_zeros(batch, self.species * (self.species + 1))
        flat.index_add_(1, self.j_target.reshape(-1), values.reshape(batch, -1))
        return flat.reshape(batch, self.species, self.species + 1)[..., : self.species]


class TorchBackend(TorchDeviceOption, CRNBackend):
    """Batched mass action in torch; `steady_states` and `trajectories` take batches."""

    name: ClassVar[str] = "crn.torch"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[BackendOptions]] = TorchOptions
    requires: ClassVar[tuple[str, ...]] = ("torch",)

    options: TorchOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=True)

    def _model(self, network: ReactionNetwork) -> Any:
        import torch

        return MassActionTorch(network, getattr(torch, self.options.dtype), self.options.device)

    def _batch(self, network: ReactionNetwork, initial: Any) -> Any:
        import torch

        start = np.atleast_2d(network.initial if initial is None else initial)
        return torch.as_tensor(
            start, dtype=getattr(torch, self.options.dtype), device=self.options.device
        )

    def steady_states(
        self,
        network: ReactionNetwork,
        initial: np.ndarray | None = None,
        rates: np.ndarray | None = None,
        tolerance: float = 1e-12,
    ) -> np.ndarray:
        """Steady states from each row of `initial` (batch, species), optionally with one
        rate vector per row (batch, reactions): (batch, species)."""
        self.validate(network, tolerance=tolerance)
        return self._steady_states(network, initial, rates, tolerance)

    def _steady_states(
        self,
        network: ReactionNetwork,
        initial: np.ndarray | None,
        rates: np.ndarray | None,
        tolerance: float,
    ) -> np.ndarray:
        import torch

        model, x = self._model(network), self._batch(network, initial)
        k = None if rates is None else torch.as_tensor(rates, dtype=x.dtype, device=x.device)
        if k is not None and k.dim() > 1 and x.shape[0] == 1:
            x = x.expand(k.shape[0], -1).clone()  # one start, one rate set per row
        eye = torch.eye(x.shape[1], dtype=x.dtype, device=x.device)
        h = torch.full((x.shape[0], 1), 1e-2, dtype=x.dtype, device=x.device)
        f = model.derivative(x, k)
        for _ in range(self.options.max_iterations):
            speed = f.abs().amax(dim=1, keepdim=True)
            if bool((speed < tolerance).all()):
                return x.cpu().numpy()
            step = torch.linalg.solve(eye - h[..., None] * model.jacobian(x, k), h * f)
            trial = x + step
            f_trial = model.derivative(trial, k)
            ok = (trial >= -1e-10).all(dim=1, keepdim=True) & (
                f_trial.abs().amax(dim=1, keepdim=True) < 10 * speed + tolerance
            )
            x = torch.where(ok, trial.clamp_min(0), x)
            f = torch.where(ok, model.derivative(x, k), f)
            grow = (speed / f.abs().amax(dim=1, keepdim=True).clamp_min(1e-300)).clamp(2, 10)
            h = torch.where(ok, h * grow, h / 4).clamp(1e-8, 1e12)
        raise NoSteadyStateError(
            f"crn.torch: no steady state after {self.options.max_iterations} steps "
            f"(max |dx/dt| = {float(f.abs().max()):.2e} > {tolerance:g})",
            float(f.abs().max()),
        )

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        x = self._steady_states(network, None, None, tolerance)[0]
        from .mass_action import largest_rate

        speed = largest_rate(network, x)
        return SteadyState(x, float("inf"), speed)

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        return self._trajectories(network, times, None)[0]

    def trajectories(
        self, network: ReactionNetwork, times: np.ndarray, initial: np.ndarray | None = None
    ) -> np.ndarray:
        """States at `times` from each initial row: (batch, len(times), species)."""
        times = np.asarray(times, dtype=float)
        self.validate(network, times=times)
        return self._trajectories(network, times, initial)

    def _trajectories(
        self, network: ReactionNetwork, times: np.ndarray, initial: np.ndarray | None
    ) -> np.ndarray:
        import torch

        model, x = self._model(network), self._batch(network, initial)
        out = [x.clone()] if times[0] == 0 else []
        t, h = 0.0, 1e-3
        for target in times[len(out) :]:
            while t < target:
                h = min(h, target - t)
                new, error = _dopri_step(model.derivative, x, h)
                scale = self.options.atol + self.options.rtol * torch.maximum(x.abs(), new.abs())
                ratio = float((error / scale).abs().max())
                if ratio <= 1:
                    t, x = t + h, new
                h *= min(5.0, max(0.2, 0.9 * (ratio + 1e-16) ** -0.2))
            out.append(x.clone())
        return torch.stack(out, dim=1).cpu().numpy()


_A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
_B5 = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_B4 = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]


def _dopri_step(f: Any, x: Any, h: float) -> tuple[Any, Any]:
    """One Dormand–Prince step: the 5th-order state and the embedded error estimate."""
    stages: list[Any] = []
    for row in _A:
        stages.append(f(x + h * sum(a * k for a, k in zip(row, stages, strict=False))))
    fifth = x + h * sum(b * k for b, k in zip(_B5, stages, strict=True))
    fourth = x + h * sum(b * k for b, k in zip(_B4, stages, strict=True))
    return fifth, fifth - fourth
