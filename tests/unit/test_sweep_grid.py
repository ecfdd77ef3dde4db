"""Sweep grids: expansion into items with stable ids, and grid files refused with the field."""

from __future__ import annotations

import pytest

from substrates.adapters.config import ConfigError
from substrates.adapters.config.executor import load_executor_config
from substrates.adapters.methods.method import flatten
from substrates.adapters.sweeps.executors import InProcess, ProcessPool, make_executor
from substrates.adapters.sweeps.grid import fingerprint, item_id, load_grid


def grid(tmp_path, text: str, method: str = "qrim"):
    path = tmp_path / "grid.yaml"
    path.write_text(text)
    return load_grid(path, method)


def test_the_grid_is_the_product_of_the_values_times_the_seeds(tmp_path) -> None:
    text = "parameters: {uncertainty: [4, 8], env: [frozenlake4]}\nseeds: 3\nfixed: {steps: 50}\n"
    _, items = grid(tmp_path, text)
    assert len(items) == 6 and len({i.id for i in items}) == 6
    assert items[0].parameters == {"steps": 50, "uncertainty": 4, "env": "frozenlake4", "seed": 0}
    assert [i.parameters["seed"] for i in items[:3]] == [0, 1, 2]
    assert items[0].id == item_id({"seed": 0, "env": "frozenlake4", "uncertainty": 4, "steps": 50})
    _, again = grid(tmp_path, text.replace("seeds: 3", "seeds: [0, 1, 2]"))
    assert fingerprint("qrim", again) == fingerprint("qrim", items)
    assert fingerprint("qrim", items[:5]) != fingerprint("qrim", items)


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("parameters: {uncertainty: []}\n", "parameters.uncertainty", "an empty list"),
        ("parameters: {uncertainty: [4, 4]}\n", "parameters", "appears twice"),
        ("parameters: {seed: [1]}\nseeds: 2\n", "seeds", "either here or"),
        ("parameters: {steps: [1]}\nfixed: {steps: 2}\n", "fixed", "also vary"),
        ("method: sample\n", "method", "the grid is for 'sample'"),
        ("parameter: {steps: [1]}\n", "parameter", "unknown field; allowed: method, parameters"),
        ("parameters: {steps: 5}\n", "parameters.steps", "valid list"),
    ],
)
def test_bad_grids_name_the_field(tmp_path, text, field, message) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        grid(tmp_path, text)
    assert caught.value.field == field


def test_executor_configs_select_their_executor(tmp_path) -> None:
    assert isinstance(make_executor(load_executor_config("cluster_local")), ProcessPool)
    one = tmp_path / "one.yaml"
    one.write_text("executor: local\noptions: {workers: 1}\n")
    with make_executor(load_executor_config(one)) as executor:
        assert isinstance(executor, InProcess)
        futures = [executor.submit(divmod, 7, d) for d in (2, 0, 3)]
        outcomes = []
        for future in executor.completed(futures):
            outcomes.append(future.exception() or future.result())
        assert outcomes[0] == (3, 1) and isinstance(outcomes[1], ZeroDivisionError)
    bad = tmp_path / "bad.yaml"
    bad.write_text("executor: dask\noptions: {workers: 0}\n")
    with pytest.raises(ConfigError, match=r"options\.workers"):
        load_executor_config(bad)


def test_results_flatten_to_columns() -> None:
    row = flatten({"a": {"b": 1, "c": {"d": [1, 2]}}, "e": None, "f": (3,)})
    assert row == {"a.b": 1, "a.c.d": "[1, 2]", "e": None, "f": "[3]"}


@pytest.mark.parametrize(
    "method",
    ["qrim", "crn-validate", "cml-reconstruct", "sample", "estimate", "event-layers", "hh-fit"],
)
def test_every_method_declares_what_its_run_function_takes(method) -> None:
    """Every option has a default; the run function takes the method's own parameters
    model; each declared backend is a config parameter whose default config selects that
    interface; each override names a parameter and a declared backend (a method that
    forgot one would fail here, not mid-sweep)."""
    import typing

    from substrates.adapters.config import load_config
    from substrates.adapters.methods import get_method

    declared = get_method(method)
    parameters = declared.validated({})
    hints = typing.get_type_hints(declared.run())
    assert hints["p"] is declared.parameters and hints["return"].__name__ == "Outcome"
    assert declared.backends, "a method runs on at least one backend"
    for name, interface in declared.backends.items():
        assert declared.inputs()[name] == "config"
        assert issubclass(load_config(getattr(parameters, name)).backend_class, interface)
    for parameter, (backend, _option) in declared.overrides.items():
        assert parameter in declared.parameters.model_fields and backend in declared.backends


def test_a_damaged_sweep_folder_is_one_line_or_redone(tmp_path) -> None:
    """A sweep.json that cannot be read is refused with one line; a fragment cut short
    (not whole Parquet) is removed, so its item runs again instead of crashing the sweep."""
    import pyarrow as pa

    from substrates.adapters.sweeps.store import SweepFolder
    from substrates.errors import SubstratesError

    (tmp_path / "sweep.json").write_text('{"method": "qrim", "fingerp')
    with pytest.raises(SubstratesError, match=r"sweep\.json cannot be read"):
        SweepFolder.check(tmp_path, "abc")
    store = SweepFolder.open(tmp_path / "s", "qrim", "abc", {}, [], held=False)
    store.commit("good", pa.table({"x": [1]}))
    store.commit("cut", pa.table({"x": [2]}))
    whole = store.fragment("cut").read_bytes()
    store.fragment("cut").write_bytes(whole[: len(whole) // 2])
    assert store.done() == {"good"} and not store.fragment("cut").exists()


def test_grids_are_sized_before_they_are_expanded(tmp_path) -> None:
    with pytest.raises(ConfigError, match="200,000,000,000 items"):
        grid(tmp_path, "parameters: {uncertainty: [4, 8]}\nseeds: 100000000000\n")
    with pytest.raises(ConfigError, match="a count ≥ 1, or a list of seeds ≥ 0"):
        grid(tmp_path, "seeds: [1, -5]\n")
