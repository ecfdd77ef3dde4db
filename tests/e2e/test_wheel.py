"""A plain wheel install: only `substrates` at top level, configs shipped, CLI runs."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFIGS = {
    "aer_statevector",
    "aer_mps",
    "aer_noisy_brisbane",
    "aer_gpu",
    "pennylane_default",
    "pennylane_lightning",
    "ibm_fake_brisbane",
    "ibm_hardware",
}


def test_wheel_contents_and_a_run_from_it(tmp_path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = dist.glob("substrates-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"substrates", wheel.name.split("-py3")[0] + ".dist-info"}
    for config in CONFIGS:
        assert f"substrates/hardware_configs/{config}.yaml" in names
    assert "substrates/datasets/quantum/examples/grover3.qasm" in names
    entry_points = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith("entry_points.txt")))
        .decode()
    )
    assert "[substrates.backends]" in entry_points and "quantum.ibm_fake" in entry_points

    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), wheel],
        check=True,
        capture_output=True,
        timeout=600,
    )
    work = tmp_path / "work"
    work.mkdir()
    probe = (
        "import substrates, sys; from substrates.cli import main;"
        f"assert substrates.__file__.startswith({str(site)!r}), substrates.__file__;"
        "sys.exit(main(['run', 'sample', '--shots', '200', '--hardware', 'aer_mps']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "grover3: 101:" in result.stdout
