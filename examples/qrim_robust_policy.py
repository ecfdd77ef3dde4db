"""
# QRIM from Python

Robust value iteration on FrozenLake with |U| = 8 transition models,
every worst case found by quantum minimum finding on Aer; the policy beside exhaustive
search's and the nominal one's.

    python examples/qrim_robust_policy.py
"""

import tempfile

import matplotlib.pyplot as plt

import substrates

run = substrates.run("qrim", uncertainty=8, out=tempfile.mkdtemp(), progress=False)
summary = run.summary
print(
    f"exact minimum in {summary['exact_minimum_rate']:.1%} of "
    f"{summary['minimizations']} minimizations, "
    f"{summary['oracle_queries_mean']:.1f} oracle queries each (exhaustive: 8)"
)
print(
    f"rectangular (robust) return: robust {summary['rectangular_return_robust']:.4f}, "
    f"nominal {summary['rectangular_return_nominal']:.4f}; "
    f"worst single member: robust {summary['worst_case_return_robust']:.4f}, "
    f"nominal {summary['worst_case_return_nominal']:.4f}"
)
policy = run.table("policy.parquet").to_pylist()
agree = sum(row["qrim_action"] == row["exhaustive_action"] for row in policy)
print(f"QRIM's policy equals exhaustive search's in {agree} of {len(policy)} states")
print(f"run folder: {run.path} ({', '.join(run.files)})")

# %%
# The run's own figure, `qrim.png`: each member's return under the robust and the
# nominal policy, and the oracle queries each inner minimisation took against exhaustive
# search's |U|.
image = plt.imread(run.path / "qrim.png")
figure = plt.figure(figsize=(9, 9 * image.shape[0] / image.shape[1]))
axes = figure.add_axes((0, 0, 1, 1))
axes.imshow(image)
axes.set_axis_off()
