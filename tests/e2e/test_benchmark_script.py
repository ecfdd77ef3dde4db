"""The benchmark scripts keep running: each in its `--smoke` mode (tiny sizes, seconds),
checked for the tables it prints; timings are never asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "quantum_backends.py"


def _smoke(script: str) -> str:
    """What `python benchmarks/SCRIPT --smoke` prints (it must exit 0)."""
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / script), "--smoke"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return result.stdout


def test_benchmark_prints_its_table() -> None:
    stdout = _smoke("quantum_backends.py")
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| circuit | qubits | Aer raw / ours")
    assert [r.split("|")[1].strip() for r in rows[1:]] == ["layered", "grover5"]


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
    ]


def test_sweep_benchmark_prints_its_table() -> None:
    pytest.importorskip("distributed")
    stdout = _smoke("sweeps.py")
    rows = [line.split("|")[1:3] for line in stdout.splitlines() if line[:2] == "| "]
    assert [(e.strip(), w.strip()) for e, w in rows[1:]] == [
        ("local", "1"),
        ("local", "2"),
        ("dask", "1"),
        ("dask", "2"),
    ]
    assert "planning 1,000 items" in stdout


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


@pytest.mark.science  # a claim about the method (TREX + ZNE cut the error 3x), not the script
def test_mitigation_benchmark_shows_mitigation_helping() -> None:
    stdout = _smoke("ibm_mitigation.py")
    rows = [line.split("|")[1:-1] for line in stdout.splitlines() if line[:2] == "| "]
    errors = {r[1].strip(): float(r[3]) for r in rows[1:]}
    assert list(errors) == [
        "sampler counts",
        "estimator, level 0",
        "estimator, level 1 (TREX)",
        "estimator, level 2 (TREX + ZNE)",
    ]
    assert errors["estimator, level 2 (TREX + ZNE)"] < errors["estimator, level 0"] / 3


def test_event_layers_benchmark_prints_both_tables() -> None:
    stdout = _smoke("event_layers.py")
    tables = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert tables[0].startswith("| one contrast evaluation, 160 × 120")
    assert len(tables) == 1 + 2 + 1 + 2  # headers, two evaluation rows, two search rows
    assert tables[3].startswith("| two-motion search, 160 × 120")
    assert all(float(row.rsplit("|", 2)[1].strip().rstrip("x")) > 0 for row in tables[1:3])


def test_the_gpu_benchmark_says_in_one_line_that_no_gpu_was_lent() -> None:
    from substrates.backends.gpu import cuda_device_count

    if cuda_device_count():
        pytest.skip("a CUDA device is here: the benchmark would measure it")
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "gpu.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("No GPU was lent: ")
    assert "Traceback" not in result.stdout + result.stderr


def test_sbml_benchmark_compares_both_writers_on_one_document() -> None:
    pytest.importorskip("libsbml")
    pytest.importorskip("pgmpy")
    stdout = _smoke("crn_sbml.py")
    rows = [line.split("|")[1].strip() for line in stdout.splitlines() if line[:2] == "| "]
    assert rows == ["network (Napp–Adams CRN)", "asia"]
