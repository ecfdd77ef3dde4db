"""Plots a person would rather look at than read."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

MAX_PANELS = 6
MAX_BARS = 16


def _circuit_panels(rows: list[dict[str, Any]]) -> tuple[Any, list[tuple[Any, str]]]:
    """A figure with one panel per circuit of `rows` (the first MAX_PANELS): the figure and
    (axis, circuit name) pairs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["circuit"] for r in rows))[:MAX_PANELS]
    figure, axes = plt.subplots(
        len(names), 1, figsize=(8, 2.6 * len(names)), squeeze=False, layout="constrained"
    )
    return figure, list(zip(axes[:, 0], names, strict=True))


def counts_figure(table: pa.Table, title: str) -> Any:
    """Bar chart of the most frequent outcomes per circuit; exact probabilities as markers."""
    rows = table.to_pylist()
    figure, panels = _circuit_panels(rows)
    for axis, name in panels:
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


def estimates_figure(table: pa.Table, title: str) -> Any:
    """Expectation value of each observable per circuit, with ±1 target standard error."""
    rows = table.to_pylist()
    figure, panels = _circuit_panels(rows)
    for axis, name in panels:
        mine = [r for r in rows if r["circuit"] == name][:MAX_BARS]
        labels = [r["observable"] for r in mine]
        errors = [r["precision"] for r in mine]
        axis.bar(
            labels,
            [r["value"] for r in mine],
            yerr=errors if any(errors) else None,
            color="tab:blue",
            capsize=3,
            label="estimate ± target standard error" if any(errors) else "exact value",
        )
        axis.axhline(0.0, color="k", lw=0.6)
        axis.legend(loc="upper right", fontsize=8)
        axis.set_ylim(-1.05, 1.05)  # a Pauli's expectation value lies in [-1, 1]
        exact = "exact" if not any(errors) else f"target standard error {errors[0]:g}"
        axis.set_title(f"{name} ({exact})", fontsize=10)
        axis.set_ylabel("expectation value")
        axis.tick_params(axis="x", labelrotation=90 if len(labels[0]) > 6 else 0, labelsize=8)
    figure.suptitle(title, fontsize=11)
    return figure


def close_figure(figure: Any) -> None:
    """Release a figure's memory once it is saved."""
    import matplotlib.pyplot as plt

    plt.close(figure)


def qrim_figure(mdp: Any, robust: Any, nominal: Any, title: str) -> Any:
    """Left: return of the QRIM and nominal policies under every member of U.
    Right: oracle queries per inner minimization against |U| for exhaustive search."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    returns_robust = mdp.policy_values(robust.policy)[:, mdp.start]
    returns_nominal = mdp.policy_values(nominal)[:, mdp.start]
    members = np.arange(mdp.num_members)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
    width = 0.4
    left.bar(members - width / 2, returns_robust, width, label="QRIM robust policy")
    left.bar(members + width / 2, returns_nominal, width, label="nominal policy")
    left.axhline(
        returns_robust.min(), color="tab:blue", ls="--", lw=1, label="QRIM's worst case over U"
    )
    left.axhline(
        returns_nominal.min(), color="tab:orange", ls="--", lw=1, label="nominal's worst case"
    )
    left.set_xlabel("member u of the uncertainty set")
    left.set_ylabel("expected discounted return")
    left.legend(fontsize=8)
    queries = robust.table()["oracle_queries"].to_numpy()
    right.hist(queries, bins=30, color="tab:green")
    right.axvline(mdp.num_members, color="k", ls="--", label=f"exhaustive: |U| = {mdp.num_members}")
    right.set_xlabel("oracle queries per inner minimization")
    right.set_ylabel("minimizations")
    right.legend(fontsize=8)
    figure.suptitle(title, fontsize=11)
    return figure


def cml_maps_figure(
    grid: Any,
    ends_km: tuple[Any, Any, Any, Any],
    times: Any,
    fields: dict[str, Any],
    std: dict[str, Any],
    reference: Any,
    title: str,
) -> Any:
    """Rain maps (mm/h) at the wettest step: the reference, each method, and the posterior
    standard deviation of each probabilistic method (`std`: method -> maps); link paths
    drawn over each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    wettest_of = reference.field if reference.field is not None else next(iter(fields.values()))
    t = int(np.nanargmax(np.nanmean(wettest_of, axis=(1, 2))))
    panels = [(reference.label, reference.field[t])] if reference.field is not None else []
    panels += [(f"{m} mean" if m in std else m, f[t]) for m, f in fields.items()]
    extent = (
        grid.x0_km,
        grid.x0_km + grid.nx * grid.cell_km,
        grid.y0_km,
        grid.y0_km + grid.ny * grid.cell_km,
    )
    top = max(float(np.nanpercentile(f, 99.5)) for _, f in panels) or 1.0
    count = len(panels) + len(std)
    figure, axes = plt.subplots(1, count, figsize=(3.4 * count, 3.6), layout="constrained")
    axes = np.atleast_1d(axes)
    for axis, (name, field) in zip(axes, panels, strict=False):
        image = axis.imshow(field, origin="lower", extent=extent, vmin=0, vmax=top, cmap="Blues")
        axis.set_title(name, fontsize=9)
    figure.colorbar(image, ax=axes[: len(panels)], label="rain (mm/h)", shrink=0.8)
    if std:
        spread_top = max(float(np.nanpercentile(s[t], 99.5)) for s in std.values()) or 1.0
        for axis, (name, spread) in zip(axes[len(panels) :], std.items(), strict=True):
            image = axis.imshow(
                spread[t], origin="lower", extent=extent, vmin=0, vmax=spread_top, cmap="Oranges"
            )
            axis.set_title(f"{name} posterior std", fontsize=9)
        figure.colorbar(image, ax=axes[len(panels) :], label="std (mm/h)", shrink=0.8)
    x0, y0, x1, y1 = ends_km
    for axis in axes:
        axis.plot(np.stack([x0, x1]), np.stack([y0, y1]), color="k", lw=0.5, alpha=0.6)
        axis.set_xlim(extent[:2])
        axis.set_ylim(extent[2:])
        axis.set_xlabel("east (km)", fontsize=8)
        axis.tick_params(labelsize=7)
    axes[0].set_ylabel("north (km)", fontsize=8)
    figure.suptitle(f"{title}, {np.datetime_as_string(times[t], unit='m')}", fontsize=10)
    return figure


def event_layers_figure(arrays: dict[str, Any], title: str) -> Any:
    """Top: each layer's events warped by its own motion (sharp where the motion is right).
    Bottom (simulated scenes): the blended frame, the true and the recovered transmission."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...models.events.cmax import EventCloud

    events, layer, motions = arrays["events"], arrays["layer"], arrays["motions"]
    width, height = arrays["width"], arrays["height"]
    cloud = EventCloud.of(events, width, height)
    images = [
        ("blended frame", "frame"),
        ("true transmission", "transmission"),
        ("recovered transmission", "recovered"),
    ]
    images = [(label, arrays[key]) for label, key in images if key in arrays]
    rows = 2 if images else 1
    figure, axes = plt.subplots(
        rows, 3, figsize=(11, 3.4 * rows), squeeze=False, layout="constrained"
    )
    for k in (0, 1):
        iwe = cloud.iwe(motions[k], (layer == k).astype(float)).sum(axis=0)
        axes[0, k].imshow(iwe, cmap="magma")
        vx, vy = motions[k][:2]
        named = ("named the transmission", "named the reflection")[k]
        label = (
            f"layer {k}, {named}: {int((layer == k).sum()):,} events\nwarped by "
            f"({vx:.0f}, {vy:.0f}) px/s"
        )
        if np.any(motions[k][2:]):
            label += "\nand gradient [" + ", ".join(f"{a:.2f}" for a in motions[k][2:]) + "] /s"
        axes[0, k].set_title(label, fontsize=9)
    everyone = cloud.iwe(np.zeros(2), np.ones(len(events))).sum(axis=0)
    axes[0, 2].imshow(everyone, cmap="magma")
    axes[0, 2].set_title("all events, not warped", fontsize=9)
    for axis, (label, image) in zip(axes[1] if images else [], images, strict=False):
        axis.imshow(image, cmap="gray", vmin=0, vmax=255)
        axis.set_title(label, fontsize=9)
    for axis in axes.ravel():
        axis.set_axis_off()
    figure.suptitle(title, fontsize=11)
    return figure


def hh_fit_figure(fits: list[tuple[Any, dict[str, float] | None]], title: str) -> Any:
    """Left: each parameter's NPE estimate and fitted value against the truth (simulated
    cells) or its posterior mean ± SD (recordings), as fractions of the prior box. Right:
    held-out patterns' observed spike probability against their total current, marked by
    whether the fitted cell predicts a spike and whether that is right."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
    parameters = fits[0][0].parameters
    low = np.array([p.low for p in parameters])
    span = np.array([p.high for p in parameters]) - low
    colors = plt.get_cmap("tab10")(np.arange(len(parameters)))
    for fit, truth in fits:
        npe, fitted = (fit.posterior.best - low) / span, (fit.theta - low) / span
        if truth is not None:
            true = (np.array([truth[p.name] for p in parameters]) - low) / span
            left.scatter(true, npe, facecolors="none", edgecolors=colors, s=30)
            left.scatter(true, fitted, c=colors, s=18)
        else:
            at = np.arange(len(parameters))
            mean, sd = fit.posterior.spread(parameters)
            left.errorbar(at, (mean - low) / span, sd / span, fmt="none", ecolor="gray")
            left.scatter(at, fitted, c=colors, s=18)
    if fits[0][1] is not None:
        left.plot([0, 1], [0, 1], color="gray", lw=0.8)
        left.set_xlabel("truth (fraction of prior)")
        left.set_title("recovered parameters: NPE (hollow), fitted (filled)", fontsize=9)
    else:
        left.set_xticks(
            range(len(parameters)), [p.name for p in parameters], rotation=45, fontsize=7
        )
        left.set_title("posterior mean ± SD (gray), fitted (dots)", fontsize=9)
    left.set_ylabel("estimate (fraction of prior)")
    for k, p in enumerate(parameters):
        left.scatter([], [], color=colors[k], label=p.name, s=12)
    if fits[0][1] is not None:
        left.scatter([], [], facecolors="none", edgecolors="gray", s=30, label="NPE estimate")
    else:
        left.errorbar([], [], [], fmt="none", ecolor="gray", label="posterior mean ± SD")
    left.scatter([], [], color="gray", s=18, label="fitted")
    left.legend(fontsize=6, loc="upper left", ncol=2)
    for fit, _ in fits:
        for r, spike in zip(fit.held_out, fit.predicted_held_out, strict=True):
            wrong = spike != (r.probability > 0.5)
            right.scatter(
                np.abs(r.pattern.currents_ua).sum(),
                r.probability,
                marker="o" if len(r.pattern.channels) == 1 else "s",
                c="tab:red" if spike else "tab:blue",
                s=16,
                edgecolors="black" if wrong else "none",
            )
    right.axhline(0.5, color="gray", lw=0.8)
    for label, style in (
        ("predicted: spike", {"c": "tab:red"}),
        ("predicted: none", {"c": "tab:blue"}),
        ("prediction wrong", {"facecolors": "none", "edgecolors": "black"}),
        ("one electrode", {"c": "gray", "marker": "o"}),
        ("several electrodes", {"c": "gray", "marker": "s"}),
    ):
        right.scatter([], [], s=16, label=label, **style)
    right.legend(fontsize=6, loc="center right")
    right.set_xlabel("total |current| of the pattern (µA)")
    right.set_ylabel("observed spike probability")
    accuracy = np.nanmean([f.accuracy_held_out for f, _ in fits])
    right.set_title(
        f"held-out patterns: predicted spike (red) / none (blue), wrong outlined; "
        f"accuracy {accuracy:.1%}",
        fontsize=9,
    )
    figure.suptitle(title, fontsize=11)
    return figure


BELIEF_METHODS = {
    "crn_original": ("original CRN at rest", "tab:blue"),
    "crn_reduced": ("reduced CRN at rest", "tab:orange"),
    "crn_elementary": ("elementary CRN at rest", "tab:purple"),
    "bp": ("belief propagation", "tab:green"),
    "trw": ("tree-reweighted BP", "tab:olive"),
    "exact": ("exact marginals", "black"),
}
"""The methods a crn-validate results table may hold: legend label and colour."""
MAX_VARIABLES = 12


def beliefs_figure(table: pa.Table, title: str) -> Any:
    """One panel per surviving variable (the first MAX_VARIABLES): P(state) from each
    method in the results table side by side per state (a method not computed, e.g.
    exact marginals on a graph too wide, is left out), one legend for all panels. Where
    the reduction is valid, the bars of a state stand level."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table.to_pylist()
    names = list(dict.fromkeys(r["variable"] for r in rows))
    shown = names[:MAX_VARIABLES]
    methods = [m for m in BELIEF_METHODS if m in table.column_names]
    methods = [m for m in methods if any(r[m] is not None for r in rows)]
    columns = min(3, len(shown))
    lines = -(-len(shown) // columns)
    figure, axes = plt.subplots(
        lines, columns, figsize=(3.8 * columns, 2.5 * lines), squeeze=False, layout="constrained"
    )
    width = 0.8 / max(len(methods), 1)
    for axis, name in zip(axes.ravel(), shown, strict=False):
        mine = [r for r in rows if r["variable"] == name]
        states = np.arange(len(mine))
        for k, method in enumerate(methods):
            label, color = BELIEF_METHODS[method]
            values = [np.nan if r[method] is None else r[method] for r in mine]
            axis.bar(
                states + (k - (len(methods) - 1) / 2) * width,
                values,
                width,
                color=color,
                label=label,
            )
        axis.set_xticks(states, [str(r["state"]) for r in mine], fontsize=7)
        axis.set_ylim(0, 1)
        axis.set_title(name, fontsize=9)
        axis.tick_params(labelsize=7)
    for axis in axes.ravel()[len(shown) :]:
        axis.set_axis_off()
    for axis in axes[:, 0]:
        axis.set_ylabel("P(state)", fontsize=8)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(methods), fontsize=8)
    more = f" (first {MAX_VARIABLES} of {len(names)} survivors)" if len(names) > len(shown) else ""
    figure.suptitle(f"{title}{more}", fontsize=11)
    return figure
