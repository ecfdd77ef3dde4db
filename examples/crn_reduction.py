"""
# Validate a CRN reduction

The Asia network with two observations, reduced, compiled to
Napp–Adams CRNs, both simulated to steady state and compared with BP and exact inference.

    python examples/crn_reduction.py
"""

import tempfile

import matplotlib.pyplot as plt

import substrates

run = substrates.run("crn-validate", evidence="6=1,7=1", out=tempfile.mkdtemp(), progress=False)
sizes = run.summary["sizes"]
print(f"reactions: {sizes['crn_original']['reactions']} → {sizes['crn_reduced']['reactions']}")
for pair, difference in run.summary["differences"].items():
    print(f"max |belief difference| {pair:<28} {difference:.1e}")
print(run.results.to_pylist()[:2])

# %%
# The run's own figure, `beliefs.png`: each surviving variable's beliefs by every method
# (both CRNs at rest, BP, tree-reweighted BP, exact), the verdict in its title.
image = plt.imread(run.path / "beliefs.png")
figure = plt.figure(figsize=(9, 9 * image.shape[0] / image.shape[1]))
axes = figure.add_axes((0, 0, 1, 1))
axes.imshow(image)
axes.set_axis_off()
