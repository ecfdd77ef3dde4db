"""A long task says how long its rest will take, once, from its measured pace."""

from __future__ import annotations

import json
import logging

import pytest

from substrates.adapters.methods import lifecycle
from substrates.adapters.methods.lifecycle import RunContext


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(lifecycle.time, "perf_counter", lambda: now[0])
    return now


def test_a_long_task_is_forecast_once_from_its_pace(tmp_path, clock, caplog) -> None:
    run = RunContext("hh-fit", tmp_path, {})
    caplog.set_level(logging.INFO, logger="substrates")
    run.report("simulations", 0, 1000)
    clock[0] += 1.0
    run.report("simulations", 32, 1000)  # under FORECAST_AFTER_S: too early to tell
    clock[0] += 8.0
    run.report("simulations", 64, 1000)  # 64 in 9 s: 936 more take 131.6 s
    clock[0] += 9.0
    run.report("simulations", 128, 1000)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["simulations: 64 of 1,000 in 9 s; about 2 min 11 s more at this pace"]
    assert run.record["forecast_s"] == {"simulations": pytest.approx(131.6, abs=0.1)}


def test_a_short_task_is_measured_but_not_announced(tmp_path, clock, caplog) -> None:
    run = RunContext("event-layers", tmp_path, {})
    caplog.set_level(logging.INFO, logger="substrates")
    run.report("scenes", 0, 4)
    clock[0] += 3.0
    run.report("scenes", 1, 4)  # 3 more at 3 s each: 9 s
    run.report("open-ended", 5, None)
    assert caplog.records == []
    assert run.record["forecast_s"] == {"scenes": 9.0}


def test_a_long_run_says_what_to_expect_when_it_starts(tmp_path, caplog) -> None:
    """The expectation comes before the run folder and stays in its provenance; a short
    one is kept but not said."""
    from substrates.adapters.config.load import load_config
    from substrates.backends.registry import create_backend

    config = load_config("aer_statevector")
    backend = create_backend(config.config.backend, config.config.options)
    caplog.set_level(logging.INFO, logger="substrates")
    run = RunContext("qrim", tmp_path, {"hardware": (config, backend)})
    run.expect(550.0, "1,000 NPE simulations of the cell dominate")
    assert [r.getMessage() for r in caplog.records] == [
        "expected: about 9 min 10 s on two cores: 1,000 NPE simulations of the cell dominate"
    ]
    run.begin({"env": "frozenlake4"})
    assert json.loads((run.folder.path / "provenance.json").read_text())["expected_s"] == 550.0
    short = RunContext("qrim", tmp_path, {"hardware": (config, backend)})
    short.expect(20.0, "a few searches")
    short.begin({"env": "frozenlake4"})
    assert len(caplog.records) == 1 and short.record["expected_s"] == 20.0
