"""Validate a CRN reduction: the Asia network with two observations, reduced, compiled to
Napp–Adams CRNs, both simulated to steady state and compared with BP and exact inference.

    python examples/crn_reduction.py
"""

import tempfile

import substrates

run = substrates.run("crn-validate", evidence="6=1,7=1", out=tempfile.mkdtemp(), progress=False)
sizes = run.summary["sizes"]
print(f"reactions: {sizes['crn_original']['reactions']} → {sizes['crn_reduced']['reactions']}")
for pair, difference in run.summary["differences"].items():
    print(f"max |belief difference| {pair:<28} {difference:.1e}")
print(run.results.to_pylist()[:2])
