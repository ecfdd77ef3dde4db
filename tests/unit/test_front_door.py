"""The public API at `substrates` itself: lazy, typed, one object per class, the layout
without the old `__path__` trick, load_backend's names and overrides, run's checks, and
`substrates check --circuit` on every shipped config."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import substrates
from substrates.adapters.config import ConfigError, load_config, shipped_configs
from substrates.adapters.config import names as literal_names
from substrates.backends.registry import names
from substrates.cli import main
from substrates.errors import BackendUnavailableError, SubstratesError

REPO = Path(__file__).resolve().parents[2]
STUB = REPO / "__init__.pyi"


def test_the_stub_lists_exactly_what_the_package_exports() -> None:
    tree = ast.parse(STUB.read_text())
    imported = {
        a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names
    }
    declared = next(n for n in tree.body if isinstance(n, ast.Assign)).value
    assert set(ast.literal_eval(declared)) == imported | {"__version__"} == set(substrates.__all__)
    assert set(substrates.__all__) <= set(dir(substrates))
    for name in substrates.__all__:
        assert getattr(substrates, name) is not None


def test_public_names_are_the_deep_objects_themselves() -> None:
    from substrates.backends.quantum.base import QuantumBackend

    assert substrates.QuantumBackend is QuantumBackend
    assert substrates.Backend is importlib.import_module("substrates.backends.base").Backend


def test_the_package_does_not_contain_itself() -> None:
    assert len(substrates.__path__) == 1
    for name in ("substrates.substrates", "substrates.tests", "substrates.benchmarks"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)


def test_the_front_door_imports_nothing_heavy_until_used() -> None:
    probe = (
        "import sys, substrates; substrates.load_backend; substrates.run; "
        "substrates.QuantumBackend; print(sorted(m for m in ('qiskit', 'torch', 'jax', "
        "'mne', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


SUBSTRATE_OF_LITERAL = {
    "QuantumName": "quantum",
    "MEAName": "mea",
    "EventsName": "events",
    "CRNName": "crn",
    "CMLName": "cml",
}


@pytest.mark.parametrize(("literal", "substrate"), SUBSTRATE_OF_LITERAL.items())
def test_typed_names_are_every_shipped_config_and_registered_backend(literal, substrate) -> None:
    """load_backend's overloads map these names to the substrate's interface: the lists must
    hold every shipped config and registry name of that substrate, and nothing else."""
    listed = set(typing.get_args(getattr(literal_names, literal)))
    configs = {n for n in shipped_configs() if load_config(n).config.substrate == substrate}
    assert listed == configs | set(names(substrate))


def test_load_backend_takes_config_names_paths_and_registry_names(tmp_path) -> None:
    assert substrates.load_backend("aer_mps").options.method == "matrix_product_state"
    config = tmp_path / "mine.yaml"
    config.write_text("substrate: quantum\nbackend: quantum.aer\noptions: {precision: single}\n")
    assert substrates.load_backend(config).options.precision == "single"
    assert substrates.load_backend(str(config), precision="double").options.precision == "double"
    backend = substrates.load_backend("quantum.aer", method="matrix_product_state")
    assert backend.to_dict() == {
        "backend": "quantum.aer",
        "options": {
            "method": "matrix_product_state",
            "precision": "double",
            "noise_model": None,
            "max_parallel_threads": 0,
        },
    }


def test_load_backend_refuses_with_the_field(monkeypatch) -> None:
    with pytest.raises(ConfigError, match=r"field 'options\.shots': unknown field"):
        substrates.load_backend("aer_statevector", shots=5)
    with pytest.raises(ConfigError, match="no such file, nor a shipped config"):
        substrates.load_backend("aer_statevectr")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        substrates.load_backend("quantum.aer_gpu")


def test_run_checks_every_option_before_writing(tmp_path) -> None:
    with pytest.raises(SubstratesError, match="'uncertain' is not an option of qrim; options: "):
        substrates.run("qrim", uncertainty=8, uncertain=8, out=tmp_path)
    with pytest.raises(SubstratesError, match="outer: invalid choice: 'sideways'"):
        substrates.run("qrim", outer="sideways", out=tmp_path)
    with pytest.raises(SubstratesError, match="unknown method 'qirm'; did you mean 'qrim'"):
        substrates.run("qirm", out=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_run_returns_the_run(tmp_path) -> None:
    run = substrates.run("sample", shots=64, seed=3, out=tmp_path, progress=False)
    assert run.status == "complete" and run.method == "sample"
    assert run.path.parent == tmp_path and run.summary == {
        "circuits": 1,
        "shots": 64,
        "outcomes": run.results.num_rows,
    }
    assert sum(run.results["count"].to_pylist()) == 64
    assert substrates.Run.open(run.path) == run
    assert {"results.parquet", "provenance.json", "counts.png"} <= set(run.files)


def _check(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


CIRCUIT = str(REPO / "datasets" / "quantum" / "examples" / "grover3.qasm")


@pytest.mark.parametrize("config", sorted({**shipped_configs(), **shipped_configs("executor")}))
def test_check_with_a_circuit_is_one_line_where_it_does_not_apply(config, capsys, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("QISKIT_IBM_TOKEN", raising=False)
    code, out, err = _check([config, "--circuit", CIRCUIT], capsys)
    applies = config in shipped_configs() and load_config(config).config.substrate == "quantum"
    if code == 0:
        assert applies and "1 in" in out and err == ""
    else:
        assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: ")
        if not applies:
            assert "--circuit applies to quantum" in err
        else:  # a quantum backend that cannot run here says why
            assert "cannot run here" in err


def test_listed_methods_print_a_line_each_not_their_whole_declaration() -> None:
    import substrates

    methods = substrates.list_methods()
    shown = repr(methods)
    assert len(shown) < 150 * len(methods)
    assert repr(methods[0]) == f"<Method {methods[0].name}: {methods[0].help}>"


def test_the_command_line_keeps_dependencies_notes_out_and_warnings_to_one_line() -> None:
    """As the CLI sets it up: a dependency's deprecation and a root-logger note (sbi's
    proposal acceptance) print nothing; a warning that stays prints as one line; --debug
    leaves everything as Python would."""
    import subprocess
    import sys

    script = (
        "import logging, warnings\n"
        "from substrates.cli import _quiet_dependencies\n"
        "_quiet_dependencies({debug})\n"
        "warnings.warn('DataFrame.join lsuffix is deprecated', FutureWarning)\n"
        "logging.getLogger().warning('Only 0.3% proposal samples are accepted')\n"
        "warnings.warn('the brightest pixel is 1 DN', UserWarning)\n"
    )
    quiet = subprocess.run(
        [sys.executable, "-c", script.format(debug=False)], capture_output=True, text=True
    )
    assert quiet.stderr == "warning: the brightest pixel is 1 DN\n"
    loud = subprocess.run(
        [sys.executable, "-c", script.format(debug=True)], capture_output=True, text=True
    )
    assert "deprecated" in loud.stderr and "proposal samples" in loud.stderr
