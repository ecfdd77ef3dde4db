"""One random stream per circuit of a batch, derived from the run's seed.

Simulators that take one seed per call give circuit i of a batch seed s + i (Aer does), so
a batch run with seed s and another with seed s + 1 share streams. Here each circuit gets a
child of `numpy.random.SeedSequence(s)`: identical circuits in one batch are independent,
and the whole batch is reproducible from s.

Example:
    >>> circuit_seeds(7, 3) == circuit_seeds(7, 3)
    True
    >>> len(set(circuit_seeds(7, 3)))
    3
    >>> circuit_seeds(None, 2)
    [None, None]
"""

from __future__ import annotations

import numpy as np

MAX_SEED = 2**32 - 1
"""Largest seed a run accepts (seeds are 0 … 2³² − 1)."""


def circuit_seeds(seed: int | None, count: int) -> list[int | None]:
    """`count` seeds in 0 … 2³² − 1, one per circuit, from `seed` (None: unseeded, each None)."""
    if seed is None:
        return [None] * count
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be in 0 … {MAX_SEED}, got {seed}")
    children = np.random.SeedSequence(seed).spawn(count)
    return [int(child.generate_state(1, np.uint32)[0]) for child in children]


def base_seed(seed: int) -> int:
    """The seed of a single simulator run over a batch: simulators that seed circuit i with
    base + i (Aer does) get a base drawn from SeedSequence(seed), so that runs with
    neighbouring seeds share no streams."""
    (base,) = circuit_seeds(seed, 1)
    assert base is not None
    return base
