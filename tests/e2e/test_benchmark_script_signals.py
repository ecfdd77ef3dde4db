"""The benchmark scripts of links, events and arrays keep running: each in its `--smoke`
mode (tiny sizes, seconds), checked for the tables it prints; timings are never asserted."""

from __future__ import annotations

import pytest

from .cli import benchmark_smoke as _smoke


@pytest.mark.science  # compiles and runs four HMC chains: 24–59 s in CI
def test_cml_benchmark_prints_both_tables() -> None:
    pytest.importorskip("pycomlink")
    stdout = _smoke("cml.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows == [
        "chain",
        "substrates",
        "pycomlink",
        "method",
        "idw",
        "kriging (pycomlink's variogram)",
        "kriging (variogram fitted per map)",
        "bayes (HMC, 4 chains x 300)",
        "method",  # pycomlink's real links
        "idw",
        "kriging (pycomlink's variogram)",
        "kriging (variogram fitted per map)",
    ]


def test_events_benchmark_prints_its_tables() -> None:
    pytest.importorskip("expelliarmus")
    stdout = _smoke("events.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows[1:3] == ["events.sim (numba)", "plain per-pixel reference"]
    assert "evt3, written by substrates" in rows
    tables = [rows[k].split(",")[0] for k in (-9, -6, -3)]
    assert tables == ["voxel grid", "event frames", "time surfaces"]
    assert [rows[k] for k in (-8, -7, -5, -4, -2, -1)] == ["ours (numba, CPU)", "tonic"] * 3


def test_mea_benchmark_prints_its_tables() -> None:
    pytest.importorskip("jaxley")
    pytest.importorskip("neuron")
    stdout = _smoke("mea_sim.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows == [
        "simulation",
        "jaxley, one cell (CPU, float64)",
        "NEURON, one cell",
        "jaxley, vmapped batch of 4",
        "NEURON, 4 cells one after another",
        "one spike template",
        "voltages only",
        "voltages + extracellular potentials at 64 electrodes",
    ]


@pytest.mark.science  # simulates the anchor session twice and a lab-scale one: 23–24 s in CI
def test_array_benchmark_sets_local_events_beside_the_full_simulation() -> None:
    pytest.importorskip("jaxley")
    stdout = _smoke("mea_array.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows[:4] == ["session", "full (anchor)", "local_events", "local_events, lab scale"]
    assert rows[4].startswith("prediction, 2 cells × ")
    assert rows[5:] == ["spikes (every pattern)", "spikes_of (in order of drive)"]
    assert "evoked spikes identical over 576 cell-events" in stdout
    assert "outcomes identical for every cell" in stdout
    assert stdout.splitlines()[-1].startswith("Verdict: PASS")


def test_event_layers_benchmark_prints_both_tables() -> None:
    stdout = _smoke("event_layers.py")
    tables = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert tables[0].startswith("| one contrast evaluation, 160 × 120")
    assert len(tables) == 1 + 2 + 1 + 2  # headers, two evaluation rows, two search rows
    assert tables[3].startswith("| two-motion search, 160 × 120")
    assert all(float(row.rsplit("|", 2)[1].strip().rstrip("x")) > 0 for row in tables[1:3])


def test_sampler_calibration_prints_every_sampler_beside_the_exact_answer() -> None:
    stdout = _smoke("cml_sampler_calibration.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows[1:] == [
        "DPS (scale 0.05)",
        "plug-and-play (DiffPIR)",
        "twisted SMC",
        "tempered SMC (latent)",
        "replica exchange (latent)",
        "Kalman (exact; the anchor)",
    ]
    assert "swap acceptance" in stdout


def test_cml_evaluation_prints_intervals_and_regimes_and_refuses_to_guess_them() -> None:
    """The evaluation's tables on the simulated case's three hours (IDW and kriging,
    hourly maps): each method against IDW and kriging, and by regime — with no interval,
    as three hours are too few to resample; and its verdict on #46's goal, which cannot
    be told without a diffusion-prior method, so it exits 1."""
    import subprocess
    import sys

    from .cli import BENCHMARKS

    pytest.importorskip("pycomlink")
    script = [sys.executable, str(BENCHMARKS / "cml_evaluation.py"), "--case", "simulated"]
    result = subprocess.run(
        [*script, "--methods", "idw,kriging", "--every", "60"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stdout.splitlines()[-1].startswith(
        "Verdict: FAIL (cannot tell) — no diffusion-prior method was run"
    )
    lines = [line for line in result.stdout.splitlines() if line[:2] == "| "]
    assert "| method | vs idw | vs kriging |" in lines
    assert any(line.startswith("| kriging | ") and "too few hours" in line for line in lines)
    regimes = [line.split("|")[1].strip() for line in lines if line.count("|") == 6]
    assert regimes[-5:] == [
        "all maps",
        "heterogeneous half",
        "homogeneous half",
        "convective",
        "stratiform",
    ]
    refused = subprocess.run(
        [*script, "--ideal-links"], capture_output=True, text=True, timeout=300
    )
    assert refused.returncode != 0
    assert "--ideal-links applies to the native and fresh cases" in refused.stderr


@pytest.mark.science  # simulates, sorts and fits three cells: about 2 min
def test_amortised_benchmark_fits_every_sorted_cell_and_gives_its_verdict() -> None:
    pytest.importorskip("jaxley")
    pytest.importorskip("hdbscan")
    stdout = _smoke("mea_amortised.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows[:6] == [
        "stage",
        "preprocessing, computed once",
        "sorting, and observing every unit (one per core)",
        "bank (16 cells, " + rows[3].split(", ", 1)[1],
        "posterior and fit of every unit",
        "**the fit, from the recording**",
    ]
    assert rows[6].startswith("held out (") and rows[7:11] == [
        "fit",
        "majority",
        "threshold baseline",
        "logistic baseline",
    ]
    assert stdout.splitlines()[-1].startswith("Verdict: ")
