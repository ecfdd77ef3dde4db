"""Every mark of a run's plot is named in a legend or a title."""

from __future__ import annotations

import pyarrow.parquet as pq

import substrates
from substrates.adapters.runs.plots import close_figure, estimates_figure


def test_estimates_name_their_bars_exact_or_with_their_error(tmp_path) -> None:
    exact = substrates.run("estimate", out=tmp_path / "a", progress=False)
    sampled = substrates.run("estimate", out=tmp_path / "b", progress=False, precision=0.05)
    for run, label in (
        (exact, "exact value"),
        (sampled, "estimate ± target standard error"),
    ):
        figure = estimates_figure(pq.read_table(run.path / "results.parquet"), "t")
        for axis in figure.axes:
            assert [t.get_text() for t in axis.get_legend().get_texts()] == [label]
        close_figure(figure)


def test_hh_fit_figure_names_every_marker() -> None:
    """The fit figure's markers (NPE hollow, fitted filled; held-out patterns coloured by
    prediction, outlined when wrong, shaped by electrode count) each have a legend entry,
    for a simulated cell (truth known) and a recording (posterior spread)."""
    from types import SimpleNamespace

    import numpy as np

    from substrates.adapters.runs.plots import hh_fit_figure
    from substrates.backends.mea.base import Parameter

    parameters = [Parameter("gna_s_cm2", 0.05, 0.5, "Na"), Parameter("gk_s_cm2", 0.01, 0.1, "K")]
    posterior = SimpleNamespace(
        best=np.array([0.2, 0.05]), spread=lambda _: (np.array([0.2, 0.05]), np.array([0.01] * 2))
    )
    held_out = [
        SimpleNamespace(
            probability=p,
            pattern=SimpleNamespace(currents_ua=np.array(c), channels=list(range(len(c)))),
        )
        for p, c in ((0.9, [2.0]), (0.1, [1.0, -1.0]))
    ]
    fit = SimpleNamespace(
        parameters=parameters,
        posterior=posterior,
        theta=np.array([0.21, 0.049]),
        held_out=held_out,
        predicted_held_out=[True, True],
        accuracy_held_out=0.5,
    )
    for truth, left_marks in (
        ({"gna_s_cm2": 0.2, "gk_s_cm2": 0.05}, ["NPE estimate", "fitted"]),
        (None, ["posterior mean ± SD", "fitted"]),
    ):
        figure = hh_fit_figure([(fit, truth)], "t")
        left, right = figure.axes
        names = [t.get_text() for t in left.get_legend().get_texts()]
        assert sorted(names) == sorted(["gna_s_cm2", "gk_s_cm2", *left_marks])
        assert [t.get_text() for t in right.get_legend().get_texts()] == [
            "predicted: spike",
            "predicted: none",
            "prediction wrong",
            "one electrode",
            "several electrodes",
        ]
        close_figure(figure)
