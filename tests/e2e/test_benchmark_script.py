"""The benchmark scripts keep running (tiny sizes; timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "quantum_backends.py"


def test_benchmark_prints_its_table() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "3", "--repeats", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| circuit | qubits | Aer raw / ours")
    assert [r.split("|")[1].strip() for r in rows[1:]] == ["layered", "grover5"]


@pytest.mark.slow
def test_cml_benchmark_prints_both_tables() -> None:
    pytest.importorskip("pycomlink")
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "cml.py"), "--links", "20", "--repeats", "1",
         "--maps", "2"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [line.split("|")[1].strip() for line in result.stdout.splitlines() if line[:2] == "| "]
    assert rows == ["chain", "substrates", "pycomlink", "method", "idw",
                    "kriging (pycomlink's variogram)", "kriging (variogram fitted per map)",
                    "bayes (HMC, 4 chains x 300)"]  # fmt: skip


@pytest.mark.slow
def test_sweep_benchmark_prints_its_table() -> None:
    pytest.importorskip("distributed")
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "sweeps.py"), "--items", "2", "--plan", "1000"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [line.split("|")[1:3] for line in result.stdout.splitlines() if line[:2] == "| "]
    assert [(e.strip(), w.strip()) for e, w in rows[1:]] == [
        ("local", "1"), ("local", "2"), ("dask", "1"), ("dask", "2")
    ]  # fmt: skip
    assert "planning 1,000 items" in result.stdout


@pytest.mark.slow
def test_events_benchmark_prints_its_tables() -> None:
    pytest.importorskip("expelliarmus")
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "events.py"), "--events", "200000", "--repeats", "1"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [line.split("|")[1].strip() for line in result.stdout.splitlines() if line[:2] == "| "]
    assert rows[1:3] == ["events.sim (numba)", "plain per-pixel reference"]
    assert "evt3, written by substrates" in rows
    tables = [rows[k].split(",")[0] for k in (-9, -6, -3)]
    assert tables == ["voxel grid", "event frames", "time surfaces"]
    assert [rows[k] for k in (-8, -7, -5, -4, -2, -1)] == ["ours (numba, CPU)", "tonic"] * 3


@pytest.mark.slow
def test_mea_benchmark_prints_its_tables() -> None:
    pytest.importorskip("jaxley")
    pytest.importorskip("neuron")
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "mea_sim.py"), "--repeats", "1"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [line.split("|")[1].strip() for line in result.stdout.splitlines() if line[:2] == "| "]
    assert rows == ["simulation", "jaxley, one cell (CPU, float64)", "NEURON, one cell",
                    "jaxley, vmapped batch of 64", "NEURON, 64 cells one after another",
                    "one spike template", "voltages only",
                    "voltages + extracellular potentials at 64 electrodes"]  # fmt: skip


@pytest.mark.slow
def test_mitigation_benchmark_shows_mitigation_helping() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "ibm_mitigation.py"), "--seeds", "1"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    rows = [line.split("|")[1:-1] for line in result.stdout.splitlines() if line[:2] == "| "]
    errors = {r[1].strip(): float(r[3]) for r in rows[1:]}
    assert list(errors) == ["sampler counts", "estimator, level 0", "estimator, level 1 (TREX)",
                            "estimator, level 2 (TREX + ZNE)"]  # fmt: skip
    assert errors["estimator, level 2 (TREX + ZNE)"] < errors["estimator, level 0"] / 3


@pytest.mark.slow
def test_event_layers_benchmark_prints_both_tables() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT.parent / "event_layers.py"), "--sensor", "160x120",
         "--evaluations", "500,5000", "--searches", "3000,all", "--more-scenes", "",
         "--repeats", "1"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    tables = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert tables[0].startswith("| one contrast evaluation, 160 × 120")
    assert len(tables) == 1 + 2 + 1 + 2  # headers, two evaluation rows, two search rows
    assert tables[3].startswith("| two-motion search, 160 × 120")
    assert all(float(row.rsplit("|", 2)[1].strip().rstrip("x")) > 0 for row in tables[1:3])


def test_the_gpu_benchmark_says_in_one_line_that_no_gpu_was_lent() -> None:
    from substrates.backends.gpu import cuda_device_count

    if cuda_device_count():
        pytest.skip("a CUDA device is here: the benchmark would measure it")
    result = subprocess.run([sys.executable, str(SCRIPT.parent / "gpu.py")],
                            capture_output=True, text=True, timeout=300, check=True)  # fmt: skip
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("No GPU was lent: ")
    assert "Traceback" not in result.stdout + result.stderr
