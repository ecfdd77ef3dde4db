"""MEA simulator speed against NEURON on the same cell, in one run (best of --repeats):

1. One cell: compartment-steps per second of a somatic spike, 4 ms at 10 µs steps, the
   jit-compiled jaxley simulation (mea.jaxley's CellSimulation, float64, CPU) against
   NEURON's fixed-step backward Euler on the same morphology, channels and step.
2. A batch of 64 parameter sets (--batch; jit(vmap(...))) against NEURON running them one after
   another (the sum of the 64 runs, each cell built alone: NEURON steps every section).
3. The extracellular computation's share: the spike template (voltages, transmembrane
   currents, line-source potentials at 64 electrodes, sampling-period means) against the
   voltages alone, both compiled.

    python benchmarks/mea_sim.py --repeats 3
"""

from __future__ import annotations

import argparse
import functools

import numpy as np
from publish import published
from timing import arguments, best

from substrates.backends.mea.simulation import CellSimulation
from substrates.datasets.mea.geometry import hexagonal
from substrates.testing.neuron import neuron_cell

print = functools.partial(print, flush=True)  # rows appear as they are measured
BATCH = 64


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=BATCH, help="parameter sets in the batch")
    args = arguments(parser, repeats=1, batch=4)
    repeats, batch = args.repeats, args.batch
    import jax

    simulation = CellSimulation(hexagonal(8, 8, 30.0), batch=batch)
    low = np.array([p.low for p in simulation.parameters])
    high = np.array([p.high for p in simulation.parameters])
    thetas = np.random.default_rng(0).uniform(low, high, (batch, len(low)))
    m, timing = simulation.morphology, simulation.timing
    work = m.compartments * timing.steps  # compartment-steps of one simulation
    injected = simulation._soma_pulse()

    with jax.enable_x64(True):
        voltages = jax.jit(simulation._voltages)
        template = jax.jit(simulation._template)
        pulse = jax.numpy.asarray(injected)
        one = best(lambda: voltages(thetas[0], pulse).block_until_ready(), repeats, warm=True)
        batched = jax.jit(jax.vmap(simulation._voltages, in_axes=(0, None)))
        many = best(lambda: batched(thetas, pulse).block_until_ready(), repeats, warm=True)
        with_field = best(lambda: template(thetas[0]).block_until_ready(), repeats, warm=True)

    def neuron(theta: np.ndarray, times: int) -> float:
        """Best run time of one NEURON cell (alone: NEURON steps every section there is)."""
        cell = neuron_cell(m, theta, simulation.celsius)
        return best(
            lambda: cell.run(timing.dt_ms, timing.steps, injected[0, :-1], currents=False), times
        )

    neuron_one = neuron(thetas[0], repeats)
    neuron_many = sum(neuron(theta, 1) for theta in thetas)

    print(f"cell: {m.compartments} compartments, {timing.steps} steps of {timing.dt_ms} ms\n")
    print("| simulation | compartment-steps / s | vs NEURON |\n|---|---|---|")
    print(f"| jaxley, one cell (CPU, float64) | {work / one:,.0f} | {neuron_one / one:.2f}x |")
    print(f"| NEURON, one cell | {work / neuron_one:,.0f} | 1x |")
    print(
        f"| jaxley, vmapped batch of {batch} | {batch * work / many:,.0f} | "
        f"{neuron_many / many:.2f}x |"
    )
    print(f"| NEURON, {batch} cells one after another | {batch * work / neuron_many:,.0f} | 1x |\n")
    share = max(0.0, 1 - one / with_field)
    print("| one spike template | ms | share |\n|---|---|---|")
    print(f"| voltages only | {one * 1e3:.2f} | |")
    print(
        f"| voltages + extracellular potentials at 64 electrodes | {with_field * 1e3:.2f} | "
        f"extracellular {share:.0%} |"
    )


if __name__ == "__main__":
    with published("mea_sim"):
        main()
