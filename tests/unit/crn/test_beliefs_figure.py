"""crn-validate's beliefs.png: a panel per surviving variable, a bar per method per state,
one legend naming every method that was computed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import substrates
from substrates.adapters.runs.plots import MAX_VARIABLES, beliefs_figure


def test_the_run_writes_beliefs_per_survivor_with_a_legend_for_each_method(tmp_path) -> None:
    run = substrates.run(
        "crn-validate", out=tmp_path, progress=False, perturbation="none", starts=0
    )
    assert (run.path / "beliefs.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pq.read_table(run.path / "results.parquet")
    figure = beliefs_figure(table, "asia")
    panels = [axis for axis in figure.axes if axis.axison]
    assert [axis.get_title() for axis in panels] == list(
        dict.fromkeys(table["variable"].to_pylist())
    )
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "original CRN at rest",
        "reduced CRN at rest",
        "belief propagation",
        "tree-reweighted BP",
        "exact marginals",
    ]
    heights = [bar.get_height() for bar in panels[0].patches]
    firsts = table.filter(pc.equal(table["variable"], table["variable"][0]))
    assert np.allclose(
        sorted(heights),
        sorted(
            np.ravel(
                [
                    firsts[m].to_pylist()
                    for m in ("crn_original", "crn_reduced", "bp", "trw", "exact")
                ]
            )
        ),
    )


def test_a_method_not_computed_is_left_out_and_many_survivors_are_capped() -> None:
    rows = [
        {
            "variable": f"v{v}",
            "state": s,
            "crn_original": 0.5,
            "crn_reduced": 0.5,
            "bp": 0.5,
            "exact": None,
        }
        for v in range(MAX_VARIABLES + 3)
        for s in (0, 1)
    ]
    figure = beliefs_figure(pa.Table.from_pylist(rows), "many")
    (legend,) = figure.legends
    assert "exact marginals" not in [t.get_text() for t in legend.get_texts()]
    assert len([a for a in figure.axes if a.axison]) == MAX_VARIABLES
    assert f"first {MAX_VARIABLES} of {MAX_VARIABLES + 3} survivors" in figure._suptitle.get_text()
