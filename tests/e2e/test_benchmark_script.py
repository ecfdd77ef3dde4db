"""The benchmark script keeps running (tiny sizes; timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "quantum_backends.py"


def test_benchmark_prints_its_table() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "3", "--repeats", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| circuit | qubits | Aer raw / ours")
    assert [r.split("|")[1].strip() for r in rows[1:]] == ["layered", "grover5"]
