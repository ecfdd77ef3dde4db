"""Plots a person would rather look at than read."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

MAX_PANELS = 6
MAX_BARS = 16


def counts_figure(table: pa.Table, title: str) -> Any:
    """Bar chart of the most frequent outcomes per circuit; exact probabilities as markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table.to_pylist()
    names = list(dict.fromkeys(r["circuit"] for r in rows))[:MAX_PANELS]
    figure, axes = plt.subplots(
        len(names), 1, figsize=(8, 2.6 * len(names)), squeeze=False, layout="constrained"
    )
    for axis, name in zip(axes[:, 0], names, strict=True):
        top = [r for r in rows if r["circuit"] == name][:MAX_BARS]
        labels = [r["bitstring"] for r in top]
        axis.bar(labels, [r["count"] / r["shots"] for r in top], color="tab:blue", label="measured")
        if top and top[0]["probability"] is not None:
            axis.plot(labels, [r["probability"] for r in top], "k_", ms=18, mew=2, label="exact")
            axis.legend(loc="upper right", fontsize=8)
        axis.set_title(f"{name} ({top[0]['shots']} shots)" if top else name, fontsize=10)
        axis.set_ylabel("probability")
        axis.tick_params(axis="x", labelrotation=90 if len(labels[0]) > 6 else 0, labelsize=8)
    figure.suptitle(title, fontsize=11)
    return figure


def close_figure(figure: Any) -> None:
    """Release a figure's memory once it is saved."""
    import matplotlib.pyplot as plt

    plt.close(figure)
