"""Compiled jaxley simulations of the default cell (cell.py) over an electrode array.

The cable equation is integrated by jaxley (HH channels, backward Euler, step dt_ms). Every
input enters as a current injected into compartments (nA): a somatic pulse that starts a
spontaneous spike, white membrane noise, and extracellular stimulation as its activating
function I = −L·φe (L the axial coupling, φe the electrode's potential at the compartment
centres; Rattay 1986), which equals NEURON's `extracellular` mechanism for the same
discretisation. Transmembrane currents are the axial inflow plus what was injected,
I_m = −L·v + I_inj, and the potential at the electrodes is their line-source sum
(extracellular.py); it is averaged over each sampling period. Batches run as jit(vmap(...))
in fixed-size chunks, on the platform asked for (cpu or gpu), in float64 or float32.

Units: µm, ms, mV, nA (injected), µA (electrode currents), µV (electrodes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from . import cell as cells
from .base import CellModel
from .extracellular import SIGMA_S_PER_M, line_source_matrix, stimulation_matrix
from .locality import peak_drive_na, until_silent

PULSES: dict[str, tuple[float, ...]] = {"triphasic": (2 / 3, -1.0, 1 / 3), "biphasic": (-1.0, 1.0)}
"""Relative phase currents of each pulse shape: a positive amplitude makes the main phase
cathodic (current into the electrode), which depolarises the membrane beneath it."""

CELSIUS = 28.0
"""Temperature of the HH channels (°C): the retina is recorded at 32–35 °C, where squid
kinetics stop firing; at 28 °C the gates run 9.3× faster than at 6.3 °C and thresholds
for 50 µs phases fall at 2–15 µA for axons 5–30 µm above the electrodes."""

SPIKE_MV = 0.0
"""A trial counts as a spike when the soma's membrane potential crosses this (mV)."""

MAX_CURRENT_UA = 20.0
"""The largest electrode current the model is meant for (µA): beyond it the point-source
field and the cable discretisation no longer describe the tissue."""


@dataclass(frozen=True)
class Timing:
    """dt_ms: integration step; window_ms: length of one simulated trial; sampling_hz: of the
    electrode traces (a whole number of steps per sample); phase_ms: of each pulse phase;
    onset_ms: when the somatic pulse or the stimulation pulse starts."""

    dt_ms: float = 0.01
    window_ms: float = 4.0
    sampling_hz: float = 20000.0
    phase_ms: float = 0.05
    onset_ms: float = 0.5

    @property
    def steps(self) -> int:
        return round(self.window_ms / self.dt_ms)

    @property
    def per_sample(self) -> int:
        ratio = 1e3 / self.sampling_hz / self.dt_ms
        if abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
            raise ValueError(f"the sampling period must be a whole number of {self.dt_ms} ms steps")
        return round(ratio)

    @property
    def samples(self) -> int:
        return self.steps // self.per_sample

    def waveform(self, shape: str) -> np.ndarray:
        """(steps,) relative electrode current of a pulse starting at onset_ms."""
        if shape not in PULSES:
            raise ValueError(f"pulse shape {shape!r}: one of {sorted(PULSES)}")
        wave = np.zeros(self.steps)
        per_phase, start = round(self.phase_ms / self.dt_ms), round(self.onset_ms / self.dt_ms)
        for k, weight in enumerate(PULSES[shape]):
            wave[start + k * per_phase : start + (k + 1) * per_phase] = weight
        return wave


class CellSimulation(CellModel):
    """The default cell over `electrodes_um` (m, 2), simulated with jaxley.

    templates(θ): each parameter set's spontaneous spike as the electrodes see it, and
    template_jacobian(θ) its derivatives; responses(θ, currents): whether each stimulation
    trial makes the cell spike, and the evoked waveform; thresholds(θ, electrodes): the
    least current that does, by bisection. θ rows are ordered as cell.NAMES."""

    max_current_ua = MAX_CURRENT_UA

    def __init__(
        self,
        electrodes_um: np.ndarray,
        morphology: cells.Morphology | None = None,
        timing: Timing | None = None,
        disk_radius_um: float = 5.0,
        soma_pulse_na: float = 2.0,
        celsius: float = CELSIUS,
        float64: bool = True,
        platform: str = "cpu",
        batch: int = 64,
    ) -> None:
        self.electrodes_um = np.column_stack(
            [np.asarray(electrodes_um, float)[:, :2], np.zeros(len(electrodes_um))]
        )
        self.morphology = morphology or cells.rgc()
        self.timing = timing or Timing()
        self.disk_radius_um, self.soma_pulse_na = disk_radius_um, soma_pulse_na
        self.celsius = celsius
        self.float64, self.platform, self.batch = float64, platform, batch
        self.sampling_hz = self.timing.sampling_hz
        self.template_samples = self.timing.samples
        self.onset_ms = self.timing.onset_ms
        self.timing.per_sample  # noqa: B018 -- fails early on a bad sampling rate
        xy = self.electrodes_um[:, :2]
        self.parameters = cells.parameters(np.stack([xy.min(axis=0), xy.max(axis=0)]))
        self._cell = self._build()  # jaxley builds its graph outside any trace
        self._compiled: dict[str, Any] = {}  # name → jit(vmap(function))

    @cached_property
    def device(self) -> Any:
        import jax

        return jax.devices(self.platform)[0]

    def _build(self) -> Any:
        import jaxley as jx

        from .channels import TemperatureHH

        m = self.morphology
        comp = jx.Compartment()
        cell = jx.Cell([jx.Branch(comp, ncomp=n) for n in m.ncomp], parents=list(m.parents))
        cell.insert(TemperatureHH(self.celsius))
        cell.set("capacitance", 1.0)
        for index, branch in enumerate(m.branch_slices()):
            cell.branch(index).set("length", float(m.length_um[branch][0]))  # equal in a branch
            for k, radius in enumerate(m.radius_um[branch]):
                cell.branch(index).comp(k).set("radius", float(radius))
        cell.set("v", -65.0)
        cell.init_states()
        cell.record("v", verbose=False)
        return cell

    def _voltages(self, theta: Any, injected: Any) -> Any:
        """(n, steps + 1) membrane potentials (mV) for one parameter set and (n, steps + 1)
        injected currents (nA; column k drives the step from k to k + 1)."""
        import jaxley as jx

        cell, m = self._cell, self.morphology
        ais, axon = np.flatnonzero(m.ais), np.flatnonzero(m.axon)
        state = cell.data_set("HH_gNa", theta[0], None)
        if len(ais):
            state = cell.select(nodes=ais).data_set("HH_gNa", theta[0] * cells.AIS_NA_FACTOR, state)
        state = cell.data_set("HH_gK", theta[1], state)
        state = cell.data_set("axial_resistivity", theta[2], state)
        state = cell.select(nodes=axon).data_set("radius", theta[3], state)
        stimuli = cell.data_stimulate(injected, None, verbose=False)
        return jx.integrate(
            cell,
            param_state=state,
            data_stimuli=stimuli,
            delta_t=self.timing.dt_ms,
            t_max=self.timing.window_ms,
        )

    def _electrode_potentials(self, theta: Any, voltages: Any, injected: Any) -> Any:
        """(m, samples) µV at the electrodes, each the mean over its sampling period."""
        import jax.numpy as jnp

        starts, ends = cells.placed(self.morphology, theta)
        field = line_source_matrix(
            starts,
            ends,
            jnp.asarray(self.electrodes_um),
            cells.radii(self.morphology, theta),
            SIGMA_S_PER_M,
            xp=jnp,
        )
        membrane = -cells.laplacian(self.morphology, theta) @ voltages[:, 1:] + injected[:, :-1]
        potentials = field @ membrane
        t = self.timing
        return potentials[:, : t.samples * t.per_sample].reshape(len(field), t.samples, -1).mean(-1)

    def _phi_per_ua(self, theta: Any) -> Any:
        """(n, m) mV per µA at each compartment centre from each electrode."""
        import jax.numpy as jnp

        starts, ends = cells.placed(self.morphology, theta)
        return stimulation_matrix(
            (starts + ends) / 2,
            jnp.asarray(self.electrodes_um),
            self.disk_radius_um,
            SIGMA_S_PER_M,
            xp=jnp,
        )

    def drive_na_per_ua(self, theta: np.ndarray) -> np.ndarray:
        """(n, m) nA: the current 1 µA on each electrode injects into each compartment of the
        cell `theta` through its activating function, −L·φe, at the pulse's full phase (the
        stimulation term of every trial's injected current, before the pulse's shape)."""
        import jax
        import jax.numpy as jnp

        with jax.enable_x64(True), jax.default_device(jax.devices("cpu")[0]):
            theta_ = jnp.asarray(theta, jnp.float64)
            laplacian = cells.laplacian(self.morphology, theta_)
            return np.asarray(-laplacian @ self._phi_per_ua(theta_))

    def _soma_pulse(self) -> np.ndarray:
        t = self.timing
        injected = np.zeros((self.morphology.compartments, t.steps + 1))
        start = round(t.onset_ms / t.dt_ms)
        injected[0, start : start + round(0.2 / t.dt_ms)] = self.soma_pulse_na
        return injected

    def _template(self, theta: Any) -> Any:
        import jax.numpy as jnp

        injected = jnp.asarray(self._soma_pulse())
        return self._electrode_potentials(theta, self._voltages(theta, injected), injected)

    def _injected(self, theta: Any, currents_ua: Any, wave: Any, key: Any, noise: Any) -> Any:
        """(n, steps + 1) nA: the stimulation's activating function and membrane noise."""
        import jax
        import jax.numpy as jnp

        m = self.morphology
        drive = -cells.laplacian(m, theta) @ (self._phi_per_ua(theta) @ currents_ua)
        # µA/cm² · µm² · 1e-8 cm²/µm² · 1e3 nA/µA = 1e-5 nA
        area_um2 = 2 * jnp.pi * cells.radii(m, theta) * m.length_um
        white = jax.random.normal(key, (m.compartments, self.timing.steps), drive.dtype)
        injected = drive[:, None] * wave[None] + white * (noise * 1e-5 * area_um2)[:, None]
        return jnp.pad(injected, ((0, 0), (0, 1)))

    def _spiked(self, theta: Any, *inputs: Any) -> Any:
        return self._voltages(theta, self._injected(theta, *inputs))[0].max() > SPIKE_MV

    def _response(self, theta: Any, *inputs: Any) -> Any:
        """Whether the cell spiked, and the electrode potentials less those of the same
        cell made passive (no Na⁺, no K⁺): the stimulus-locked membrane transient that
        artefact subtraction removes along with the artefact."""
        injected = self._injected(theta, *inputs)
        voltages = self._voltages(theta, injected)
        passive = theta.at[0].set(0.0).at[1].set(0.0)
        transient = self._electrode_potentials(passive, self._voltages(passive, injected), injected)
        potentials = self._electrode_potentials(theta, voltages, injected) - transient
        return voltages[0].max() > SPIKE_MV, potentials

    # -- batched, compiled entry points ------------------------------------------------

    def _run(self, name: str, function: Callable[..., Any], *arrays: np.ndarray) -> Any:
        """function vmapped over the leading axis of every array, in chunks of `batch` (or
        fewer: all there are, rounded up to a power of two; the last one padded),
        jit-compiled once per function and chunk size (so at most log2(batch) + 1 sizes:
        a compilation costs seconds, a fit asks for many batch sizes); numpy results."""
        import jax

        with jax.enable_x64(self.float64), jax.default_device(self.device):
            if name not in self._compiled:
                self._compiled[name] = jax.jit(jax.vmap(function))
            compiled = self._compiled[name]
            total = len(arrays[0])
            size = min(self.batch, 1 << max(0, total - 1).bit_length())
            outputs: list[Any] = []
            for start in range(0, total, size):
                chunk = [a[start : start + size] for a in arrays]
                pad = size - len(chunk[0])
                chunk = [np.concatenate([c, np.repeat(c[-1:], pad, axis=0)]) for c in chunk]
                outputs.append(jax.device_get(compiled(*chunk)))
        return jax.tree.map(lambda *parts: np.concatenate(parts)[:total], *outputs)

    def templates(self, theta: np.ndarray) -> np.ndarray:
        """(B, m, samples) µV: each parameter set's spontaneous spike (a 0.2 ms somatic pulse
        at onset_ms) at every electrode."""
        return self._run("template", self._template, np.atleast_2d(theta))

    def template_jacobian(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each parameter set's template (B, m, samples) µV and its derivatives with respect
        to θ (B, m, samples, 8), by forward-mode differentiation through jaxley."""
        import jax

        def both(theta_: Any) -> Any:
            return self._template(theta_), jax.jacfwd(self._template)(theta_)

        template, jacobian = self._run("jacobian", both, np.atleast_2d(theta))
        return template, jacobian

    def spikes(
        self,
        theta: np.ndarray,
        currents_ua: np.ndarray,
        shape: str = "triphasic",
        noise_ua_cm2: float = 0.0,
        seed: int = 0,
    ) -> np.ndarray:
        """(B,) whether each trial (θ (B, 8), electrode currents (B, m) µA) spikes."""
        return self._run(
            "spiked", self._spiked, *self._trials(theta, currents_ua, shape, noise_ua_cm2, seed)
        )

    def spikes_of(
        self, theta: np.ndarray, currents_ua: np.ndarray, shape: str = "triphasic"
    ) -> np.ndarray:
        """(E,) whether the one cell θ (8,) spikes for each event's electrode currents
        (E, m) µA, without membrane noise: simulated in order of drive until a whole batch
        is silent and every event left drives the cell under half the least drive that
        made it spike (locality.py); those left are predicted silent."""
        thetas = np.broadcast_to(theta, (len(currents_ua), len(theta)))

        def simulate(indices: np.ndarray, count: int) -> tuple[np.ndarray, float]:
            return self.spikes(thetas[indices], currents_ua[indices], shape)[:count], 0.0

        peaks = peak_drive_na(self.drive_na_per_ua(theta), currents_ua)
        return until_silent(peaks, self.batch, simulate)[0]

    def responses(
        self,
        theta: np.ndarray,
        currents_ua: np.ndarray,
        shape: str = "triphasic",
        noise_ua_cm2: float = 0.0,
        seed: int = 0,
        subset: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Trials: θ (B, 8) with electrode currents (B, m) µA of one pulse `shape`, plus a
        white membrane noise current density (µA/cm², drawn anew every step): (spiked (B,),
        electrode potentials (B, m, samples) µV, without the stimulation artefact and the
        passive membrane transient). `subset`: indices of the only trials to simulate (the
        results are theirs, in that order), each with the noise it has among all B."""
        spiked, potentials = self._run(
            "response",
            self._response,
            *self._trials(theta, currents_ua, shape, noise_ua_cm2, seed, subset),
        )
        return spiked.astype(bool), potentials

    def _trials(
        self,
        theta: np.ndarray,
        currents_ua: np.ndarray,
        shape: str,
        noise_ua_cm2: float,
        seed: int,
        subset: np.ndarray | None = None,
    ) -> tuple[np.ndarray, ...]:
        import jax

        theta, currents = np.atleast_2d(theta), np.atleast_2d(currents_ua)
        keys = np.asarray(jax.random.split(jax.random.PRNGKey(seed), len(theta)))
        if subset is not None:
            theta, currents, keys = theta[subset], currents[subset], keys[subset]
        trials = len(theta)
        waves = np.broadcast_to(self.timing.waveform(shape), (trials, self.timing.steps))
        return theta, currents, waves, keys, np.full(trials, float(noise_ua_cm2))

    def thresholds(
        self,
        theta: np.ndarray,
        electrodes: np.ndarray,
        shape: str = "triphasic",
        low_ua: float = 0.5,
        high_ua: float = MAX_CURRENT_UA,
        rounds: int = 8,
    ) -> np.ndarray:
        """(B, E) µA: the least amplitude of a single-electrode pulse on each of `electrodes`
        (indices) that makes the cell spike, bisected in log current to a factor
        (high/low)^(2^-rounds); `high_ua` where even that does not."""
        theta = np.atleast_2d(theta)
        pairs = np.array([(b, e) for b in range(len(theta)) for e in electrodes])
        lo = np.full(len(pairs), np.log(low_ua))
        hi = np.full(len(pairs), np.log(high_ua))
        reach = self._spikes(theta[pairs[:, 0]], pairs[:, 1], np.exp(hi), shape)
        for _ in range(rounds):
            mid = (lo + hi) / 2
            spiked = self._spikes(theta[pairs[:, 0]], pairs[:, 1], np.exp(mid), shape)
            hi, lo = np.where(spiked, mid, hi), np.where(spiked, lo, mid)
        found = np.where(reach, np.exp(hi), high_ua)
        return found.reshape(len(theta), len(electrodes))

    def _spikes(
        self, theta: np.ndarray, electrode: np.ndarray, amplitude_ua: np.ndarray, shape: str
    ) -> np.ndarray:
        currents = np.zeros((len(theta), len(self.electrodes_um)))
        currents[np.arange(len(theta)), electrode] = amplitude_ua
        return self.spikes(theta, currents, shape)
