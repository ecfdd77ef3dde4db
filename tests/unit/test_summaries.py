"""Every method's summary reads as sentences with units: each figure is declared once
(label, unit, format) and the declaration feeds the printed report, summary.json and the
reference docs. The quick methods run here; hh-fit's and cml-reconstruct's summaries are
checked where their runs are (tests/e2e)."""

from __future__ import annotations

import json

import pytest

import substrates
from substrates.adapters.methods import get_method
from substrates.adapters.methods.summary import Entry, labelled, undeclared

QUICK = {
    "sample": {"shots": 100, "seed": 1},
    "estimate": {},
    "qrim": {"uncertainty": 4},
    "crn-validate": {"perturbation": "none", "starts": 0},
    "event-layers": {"scenes": 1},
}


@pytest.mark.parametrize("method", sorted(QUICK))
def test_every_figure_of_a_run_is_declared_and_printed_in_words(method, tmp_path) -> None:
    run = substrates.run(method, out=tmp_path, progress=False, **QUICK[method])
    declared = get_method(method)
    assert undeclared(run.summary, declared.summary) == []
    figures = json.loads((run.path / "summary.json").read_text())
    assert figures and all(f["label"] != f["key"] for f in figures)
    if declared.report.__name__ == "summary_report":  # the report is the summary itself
        printed = declared.report(run).splitlines()[:-1]
        assert printed == [f"{f['label']}: {f['text']}" for f in figures]
        assert not any("_" in line.split(":")[0] for line in printed)  # words, not keys


def test_an_entry_formats_its_unit_and_fills_its_label() -> None:
    entry = Entry("mean_error_{estimate}_prior_fraction", "mean error of {estimate}", "%")
    assert entry.line("mean_error_npe_prior_fraction", 0.0519) == "mean error of npe: 5.2 %"
    assert entry.match("mean_error_prior_fraction") is None
    assert Entry("n", "cells", format="d").text(3) == "3"
    assert Entry("x", "speed", "px/s").text(float("nan")) == "n/a px/s"
    rows = labelled({"a": {"b": 2.0}, "c": "text"}, [Entry("a.{k}", "a of {k}", "s")])
    assert rows[0]["label"] == "a of b" and rows[0]["text"] == "2 s"
    assert rows[1] == {"key": "c", "label": "c", "unit": "", "value": "text", "text": "text"}
