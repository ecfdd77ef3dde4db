"""The same circuits on three quantum backends, chosen by config name: counts against
the exact distribution, and an expectation value.

    python examples/quantum_backends.py
"""

import substrates
from substrates.datasets.quantum.generators import ghz, grover

circuits = [grover("101"), ghz(4)]
for config in ("aer_statevector", "aer_mps", "pennylane_default"):
    backend = substrates.load_backend(config)
    counts = backend.sample(circuits, shots=2000, seed=7)
    exact = backend.probabilities(circuits)
    marked = counts[0].counts.get("101", 0) / 2000
    print(
        f"{config:<18} P(101) sampled {marked:.3f}, exact {exact[0]['101']:.4f}; "
        f"<XXXX> on GHZ(4) = {backend.estimate([ghz(4)], ['XXXX'])[0]:+.3f}"
    )
