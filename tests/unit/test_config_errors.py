"""Every bad config is one line naming file, field and what is allowed; exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrates.cli import main
from substrates.datasets.quantum.generators import ghz

QUANTUM = "substrate: quantum\n"


def check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str) -> str:
    config = tmp_path / "config.yaml"
    config.write_text(text)
    code = main(["check", str(config), *extra])
    out, err = capsys.readouterr()
    assert code == 2, out
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(config) in lines[0]
    return lines[0]


def test_unparsable_yaml(tmp_path, capsys) -> None:
    line = check(tmp_path, capsys, "substrate: quantum\nbackend: [quantum.aer\n")
    assert "not valid YAML (line 3" in line


def test_a_repeated_key_is_refused_with_both_lines(tmp_path, capsys) -> None:
    text = "substrate: quantum\nbackend: quantum.aer\noptions: {}\nbackend: quantum.ibm\n"
    line = check(tmp_path, capsys, text)
    assert "not valid YAML (line 4, column 1): duplicate key 'backend' (first on line 2)" in line
    nested = "substrate: quantum\nbackend: quantum.aer\noptions:\n  shots: 1\n  shots: 2\n"
    assert "(line 5, column 3): duplicate key 'shots' (first on line 4)" in check(
        tmp_path, capsys, nested
    )


def test_a_control_character_is_one_line_naming_line_and_column(tmp_path, capsys) -> None:
    line = check(tmp_path, capsys, "substrate: quantum\nbackend: quan\x00tum.aer\n")
    assert "not valid YAML (line 2, column 14): the control character U+0000" in line


def test_not_a_mapping(tmp_path, capsys) -> None:
    assert "expected a mapping" in check(tmp_path, capsys, "- quantum.aer\n")


def test_unknown_backend_suggests_the_closest(tmp_path, capsys) -> None:
    line = check(tmp_path, capsys, "substrate: quantum\nbackend: quantum.aer_gp\n")
    assert "field 'backend'" in line
    assert "did you mean 'quantum.aer_gpu'?" in line


def test_unknown_option_lists_the_allowed_ones(tmp_path, capsys) -> None:
    text = "substrate: quantum\nbackend: quantum.aer\noptions:\n  shotz: 10\n"
    line = check(tmp_path, capsys, text)
    assert "field 'options.shotz'" in line
    assert "allowed: method, precision, noise_model, max_parallel_threads" in line


def test_mistyped_option_value_lists_allowed_values(tmp_path, capsys) -> None:
    text = "substrate: quantum\nbackend: quantum.aer\noptions:\n  method: statvector\n"
    line = check(tmp_path, capsys, text)
    assert "field 'options.method'" in line
    assert "'statevector'" in line and "'matrix_product_state'" in line


def test_option_of_the_wrong_type(tmp_path, capsys) -> None:
    text = "substrate: quantum\nbackend: quantum.aer\noptions:\n  max_parallel_threads: many\n"
    line = check(tmp_path, capsys, text)
    assert "field 'options.max_parallel_threads'" in line
    assert "integer" in line


@pytest.mark.parametrize(
    ("text", "field", "reason"),
    [
        (
            "substrate: quantum\nbackend: quantum.aer\noptions:\n  max_parallel_threads: 1e21\n",
            "options.max_parallel_threads",
            "",
        ),
        (
            "substrate: quantum\nbackend: quantum.aer\noptions:\n  max_parallel_threads: 4097\n",
            "options.max_parallel_threads",
            "less than or equal to 4096",
        ),
        (
            "substrate: crn\nbackend: crn.ssa\noptions:\n  volume: .inf\n",
            "options.volume",
            "finite number",
        ),
        (
            "executor: dask\noptions:\n  connect_timeout_s: 1e8\n",
            "options.connect_timeout_s",
            "less than or equal to 3600",
        ),
        ("executor: dask\noptions:\n  connect_timeout_s: .nan\n", "options.connect_timeout_s", ""),
    ],
)
def test_numbers_beyond_documented_bounds_are_refused(tmp_path, capsys, text, field, reason):
    line = check(tmp_path, capsys, text)
    assert f"field '{field}'" in line and reason in line


def test_unknown_device_snapshot(tmp_path, capsys) -> None:
    text = "substrate: quantum\nbackend: quantum.aer\noptions:\n  noise_model: fake_atlantis\n"
    line = check(tmp_path, capsys, text)
    assert "field 'options.noise_model'" in line and "fake_atlantis" in line


def test_wrong_substrate_for_backend(tmp_path, capsys) -> None:
    line = check(tmp_path, capsys, "substrate: crn\nbackend: quantum.aer\n")
    assert "field 'substrate'" in line


def test_conflicting_ibm_device_choice(tmp_path, capsys, monkeypatch) -> None:
    text = QUANTUM + "backend: quantum.ibm\noptions:\n  device: ibm_x\n  least_busy: true\n"
    assert "exactly one of 'device: <name>' and 'least_busy: true'" in check(tmp_path, capsys, text)


def test_gpu_tier_without_a_gpu(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # no GPU, even on a machine that has one
    line = check(tmp_path, capsys, "substrate: quantum\nbackend: quantum.aer_gpu\n")
    assert "field 'backend'" in line and "gpu tier" in line and "no CUDA device" in line


def test_gpu_device_of_a_simulator_backend(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    text = "substrate: quantum\nbackend: quantum.pennylane\noptions:\n  device: lightning.gpu\n"
    line = check(tmp_path, capsys, text)
    assert "field 'options'" in line and "lightning.gpu" in line and "no CUDA device" in line


def test_hardware_tier_without_credentials(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("QISKIT_IBM_TOKEN", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no saved account either
    import substrates.backends.quantum.ibm as ibm

    monkeypatch.setattr(ibm, "_SAVED_ACCOUNT", tmp_path / ".qiskit" / "qiskit-ibm.json")
    line = check(tmp_path, capsys, QUANTUM + "backend: quantum.ibm\noptions:\n  least_busy: true\n")
    assert "hardware tier" in line and "no IBM Quantum credentials" in line


def test_circuit_wider_than_the_backend(tmp_path, capsys) -> None:
    from substrates.datasets.quantum.circuit_files import save_qpy

    wide = tmp_path / "wide.qpy"
    save_qpy(wide, [ghz(40)])
    line = check(tmp_path, capsys, QUANTUM + "backend: quantum.aer\n", "--circuit", str(wide))
    assert "40 qubits" in line and "allows at most" in line


def test_missing_file_names_the_shipped_configs(capsys) -> None:
    assert main(["check", "no_such_config"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "aer_statevector" in err


def test_every_shipped_config_is_valid(capsys) -> None:
    from substrates.adapters.config import ConfigError, load_config, shipped_configs

    assert set(shipped_configs()) >= {
        "aer_statevector",
        "aer_mps",
        "aer_noisy_brisbane",
        "aer_gpu",
        "pennylane_default",
        "pennylane_lightning",
        "ibm_fake_brisbane",
        "ibm_hardware",
    }
    for name in shipped_configs():
        load_config(name)  # parses, known backend, valid options
    from substrates.adapters.config.executor import load_executor_config

    assert set(shipped_configs("executor")) == {"cluster_local", "cluster_dask"}
    for name in shipped_configs("executor"):
        load_executor_config(name)
    assert main(["check", "cluster_dask"]) == 0
    assert "executor             dask" in capsys.readouterr().out
    with pytest.raises(ConfigError, match="an executor config"):
        load_config("cluster_local")
