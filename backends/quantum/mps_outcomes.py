"""Exact outcome probabilities from a matrix product state, without a dense vector.

Aer's `save_matrix_product_state` gives the state in Vidal's canonical form: for qubit i
the matrices Γᵢ[0], Γᵢ[1] and, between qubits i and i+1, the Schmidt values λᵢ, so that
amplitude(b₀ … bₙ₋₁) = Γ₀[b₀] λ₀ Γ₁[b₁] λ₁ ⋯ Γₙ₋₁[bₙ₋₁]. Every right part of that chain is
orthonormal, so the probability of the bits of the first k qubits is the squared norm of
the left part, and the marginal over the measured qubits is found by a depth-first search
over them in qubit order, carrying the χ × χ left environment and summing unmeasured
qubits into it. Prefixes of probability at or below `cutoff` are pruned, so the work and
memory grow with the number of outcomes that occur (two for a GHZ state of any width)
times χ³, never with 2ⁿ.

Example:
    >>> import numpy as np
    >>> g = [np.array([[[1.0, 0.0]], [[0.0, 1.0]]]),      # a Bell pair in Vidal form
    ...      np.array([[[1.0], [0.0]], [[0.0], [1.0]]])]
    >>> l = [np.array([1.0, 1.0]) / np.sqrt(2)]
    >>> {k: round(v, 12) for k, v in mps_outcomes(g, l, (0, 1)).items()}
    {(0, 0): 0.5, (1, 1): 0.5}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import CapabilityError

MAX_OUTCOMES = 2**20
"""Most outcomes above the cutoff one call may return (each costs a Python dict entry)."""


def mps_outcomes(
    gammas: Sequence[Sequence[np.ndarray]],
    lambdas: Sequence[np.ndarray],
    measured: Sequence[int],
    *,
    cutoff: float = 1e-14,
    max_outcomes: int = MAX_OUTCOMES,
) -> dict[tuple[int, ...], float]:
    """Probabilities of the measured qubits' bits (ordered as `measured`) above `cutoff`.

    gammas[i] is the pair (Γᵢ[0], Γᵢ[1]) of qubit i, lambdas[i] the Schmidt values between
    qubits i and i + 1. Raises CapabilityError when more than `max_outcomes` outcomes
    have probability above the cutoff.
    """
    n = len(gammas)
    order = sorted(range(len(measured)), key=lambda j: measured[j])
    wanted = {measured[j]: j for j in order}
    last = max(measured)

    def site(i: int, b: int) -> np.ndarray:
        m = np.asarray(gammas[i][b])
        return m * np.asarray(lambdas[i])[None, :] if i < n - 1 else m

    sites = [(site(i, 0), site(i, 1)) for i in range(last + 1)]  # once, not per prefix

    out: dict[tuple[int, ...], float] = {}
    stack: list[tuple[int, tuple[int, ...], np.ndarray]] = [(0, (), np.ones((1, 1), complex))]
    while stack:
        i, bits, env = stack.pop()
        if i > last:
            probability = float(np.real(np.trace(env)))
            if probability > cutoff:
                key = [0] * len(measured)
                for qubit_bits, j in zip(bits, order, strict=True):
                    key[j] = qubit_bits
                out[tuple(key)] = out.get(tuple(key), 0.0) + probability
                if len(out) > max_outcomes:
                    raise CapabilityError(
                        f"more than {max_outcomes:,} outcomes have probability above "
                        f"{cutoff:g}; sample the circuit instead"
                    )
            continue
        if i not in wanted:
            stack.append((i + 1, bits, sum(m.conj().T @ env @ m for m in sites[i])))
            continue
        for b in (1, 0):
            m = sites[i][b]
            new = m.conj().T @ env @ m
            if np.real(np.trace(new)) > cutoff:
                stack.append((i + 1, (*bits, b), new))
    return out
