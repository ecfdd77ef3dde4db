"""
# One circuit, three quantum backends

The same circuits on three quantum backends, chosen by config name: counts against
the exact distribution, and an expectation value.

    python examples/quantum_backends.py
"""

import matplotlib.pyplot as plt

import substrates
from substrates.datasets.quantum.generators import ghz, grover

circuits = [grover("101"), ghz(4)]
sampled = {}
for config in ("aer_statevector", "aer_mps", "pennylane_default"):
    backend = substrates.load_backend(config)
    counts = backend.sample(circuits, shots=2000, seed=7)
    exact = backend.probabilities(circuits)
    marked = counts[0].counts.get("101", 0) / 2000
    sampled[config] = marked
    print(
        f"{config:<18} P(101) sampled {marked:.3f}, exact {exact[0]['101']:.4f}; "
        f"<XXXX> on GHZ(4) = {backend.estimate([ghz(4)], ['XXXX'])[0]:+.3f}"
    )

# %%
# Grover's marked state |101⟩ as sampled (2,000 shots) on each backend, and its exact
# probability.
figure, axes = plt.subplots(figsize=(6, 4))
axes.bar(list(sampled), list(sampled.values()), color="tab:blue", label="sampled")
axes.axhline(exact[0]["101"], color="black", linestyle="--", label="exact")
axes.set_ylabel("P(101)")
axes.set_ylim(0, 1)
axes.legend()
