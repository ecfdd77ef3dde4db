"""`substrates run estimate`: values against qiskit.quantum_info, bad input refused before
any folder, the files a run leaves."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from qiskit import qasm3
from qiskit.quantum_info import SparsePauliOp, Statevector

from substrates.datasets.quantum.generators import ghz
from substrates.errors import CapabilityError
from substrates.models.estimate import observable_pairs

from .cli import only_run_folder, substrates

CIRCUITS = """OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q[0];
cx q[0], q[1];
ry(0.7) q[2];
cz q[1], q[2];
c = measure q;
"""


def _exact(circuit_text: str, label: str) -> float:
    circuit = qasm3.loads(circuit_text).remove_final_measurements(inplace=False)
    return float(np.real(Statevector(circuit).expectation_value(SparsePauliOp(label))))


@pytest.mark.parametrize("config", ["aer_statevector", "aer_mps", "pennylane_default"])
def test_exact_values_equal_quantum_info(tmp_path, config) -> None:
    (tmp_path / "c.qasm").write_text(CIRCUITS)
    labels = ["ZZI", "XXI", "IIZ", "ZYX", "IXZ"]
    result = substrates(
        "run",
        "estimate",
        "--hardware",
        config,
        "--circuit",
        "c.qasm",
        "--observables",
        ",".join(labels),
        cwd=tmp_path,
    )
    folder = only_run_folder(tmp_path / "runs")
    rows = pq.read_table(folder / "results.parquet").to_pylist()
    assert [r["observable"] for r in rows] == labels
    for row in rows:
        assert row["value"] == pytest.approx(_exact(CIRCUITS, row["observable"]), abs=1e-9)
        assert row["precision"] == 0.0 and row["job_id"] is None
    assert "exact values" in result.stdout and (folder / "estimates.png").stat().st_size > 0
    record = json.loads((folder / "provenance.json").read_text())
    assert record["status"] == "complete" and record["summary"]["values"] == len(labels)


def test_sampled_values_lie_within_their_precision(tmp_path) -> None:
    (tmp_path / "c.qasm").write_text(CIRCUITS)
    substrates(
        "run",
        "estimate",
        "--circuit",
        "c.qasm",
        "--observables",
        "ZZI,XXI,IIZ",
        "--precision",
        "0.02",
        "--seed",
        "3",
        cwd=tmp_path,
    )
    rows = pq.read_table(only_run_folder(tmp_path / "runs") / "results.parquet").to_pylist()
    for row in rows:
        assert abs(row["value"] - _exact(CIRCUITS, row["observable"])) < 5 * 0.02
        assert row["precision"] == 0.02


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--observables", "ZZ"], "no observable has 3 letters"),
        (["--observables", "ZZZ,ZZ"], "'ZZ' has 2 letters; no circuit has that many"),
        (["--observables", "ZQZ"], "'ZQZ' is not a Pauli label"),
        (["--hardware", "ibm_fake_brisbane"], "pass --precision"),
        (["--precision", "-1"], "precision"),
    ],
)
def test_bad_requests_stop_before_any_folder(tmp_path, args, message) -> None:
    result = substrates("run", "estimate", *args, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_default_observables_are_z_on_each_qubit() -> None:
    assert observable_pairs([ghz(3)], []) == [(0, "IIZ"), (0, "IZI"), (0, "ZII")]
    with pytest.raises(CapabilityError, match="not a Pauli label"):
        observable_pairs([ghz(2)], [""])
