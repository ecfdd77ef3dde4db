"""The studies whose small cases take more than seconds, run to their verdicts: the
events study's smoke scene (about 40 s). The MEA study's pipeline (`fit_array`) runs in
benchmarks/mea_amortised.py's smoke test; the CML study's smoke case (3–6 min) is run by
hand (`python -m substrates.studies run cml-fresh --smoke --results /tmp/s`)."""

from __future__ import annotations

import pytest

from substrates.studies.claims import get
from substrates.studies.runner import run_study


@pytest.mark.science  # renders, simulates and separates one scene: about 40 s
def test_the_events_study_s_smoke_scene_runs_every_method(tmp_path) -> None:
    report = run_study(get("events-frames"), tmp_path, smoke=True, log=lambda _: None)
    assert report.failed == {}
    assert {r["method"] for r in report.rows} == {
        "events",
        "frames (Farnebäck)",
        "input",
        "true motions",
    }
    scores = {r["method"]: r["psnr_db"] for r in report.rows}
    # the true motions bound what either estimate of them can give the separation
    assert scores["true motions"] >= max(scores["events"], scores["frames (Farnebäck)"]) - 0.5
    assert report.judgement.outcome == "CANNOT TELL"  # one scene: no interval
