"""The benchmark scripts of quantum, CRN and sweeps keep running: each in its `--smoke`
mode (tiny sizes, seconds), checked for the tables it prints; timings are never asserted.
(Links, events and arrays: test_benchmark_script_signals.py, a file of its own so that the
two share the workers.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from .cli import BENCHMARKS
from .cli import benchmark_smoke as _smoke


def test_benchmark_prints_its_table() -> None:
    stdout = _smoke("quantum_backends.py")
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| circuit | qubits | Aer raw / ours")
    assert [r.split("|")[1].strip() for r in rows[1:]] == ["layered", "grover5"]


@pytest.mark.science  # starts local pools and a dask cluster: 25–46 s in CI
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


def test_the_gpu_benchmark_says_in_one_line_that_no_gpu_was_lent() -> None:
    from substrates.backends.gpu import cuda_device_count

    if cuda_device_count():
        pytest.skip("a CUDA device is here: the benchmark would measure it")
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gpu.py")],
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


def test_dynamic_circuit_benchmark_prints_its_table() -> None:
    stdout = _smoke("quantum_dynamic.py")
    rows = [line.split("|")[1:4] for line in stdout.splitlines() if line[:2] == "| "]
    sampled_by = [r[2].strip() for r in rows[1:]]
    assert sampled_by[:5] == [
        "Aer",
        "default.qubit, tree traversal",
        "lightning.qubit, tree traversal",
        "default.qubit, one-shot (before)",
        "lightning.qubit, one-shot (before)",
    ]
    assert {r[0].split("(")[0].strip() for r in rows[1:]} == {"shipped cases", "random dynamic"}


def test_search_rule_comparison_prints_its_table() -> None:
    stdout = _smoke("qrim_search_rules.py")
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert rows[0] == "| rule | N = 16 |"
    assert rows[1].startswith("| previous rule (anchor) | ") and rows[1].endswith("missed |")
    shipped = [r for r in rows if "(shipped)" in r]
    assert len(shipped) == 1 and shipped[0].endswith("x |")
