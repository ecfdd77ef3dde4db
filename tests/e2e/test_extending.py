"""CONTRIBUTING's two recipes, followed by a test: a new backend is a module, its entry point
and its config; a new method is one module (plus its entry point when it lives outside
substrates). Both are installed here as a distribution of their own (a dist-info folder
on the path, what pip writes) and used through the command line in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TOY = '''
"""A toy plugin: an explicit-Euler CRN simulator and a method that checks a decay."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pyarrow as pa
from pydantic import Field

from substrates.adapters.methods import Method, MethodParameters, option
from substrates.adapters.methods.lifecycle import Outcome, RunContext
from substrates.backends.base import BackendOptions
from substrates.backends.crn.base import CRNBackend, CRNCapabilities, SteadyState
from substrates.datasets.crn.reaction_network import NetworkBuilder, ReactionNetwork


class EulerOptions(BackendOptions):
    step: float = Field(1e-4, gt=0, description="Euler step (time units)")


class EulerBackend(CRNBackend):
    """Mass action by explicit Euler steps: a backend in a dozen lines."""

    name: ClassVar[str] = "toy.euler"
    tier: ClassVar[str] = "simulator"
    Options = EulerOptions

    @property
    def capabilities(self) -> CRNCapabilities:
        return CRNCapabilities(stochastic=False, batched=False)

    def _dxdt(self, network: ReactionNetwork, x: np.ndarray) -> np.ndarray:
        v = np.array(network.rates, dtype=float)
        offsets = network.reactant_offsets
        for r in range(network.reactions):
            span = slice(offsets[r], offsets[r + 1])
            powers = network.reactant_coefficients[span]
            v[r] *= np.prod(x[network.reactant_species[span]] ** powers)
        return network.net_stoichiometry() @ v

    def _simulate(self, network: ReactionNetwork, times: np.ndarray) -> np.ndarray:
        x, t, out = np.array(network.initial, dtype=float), 0.0, []
        for target in times:
            while t < target - 1e-12:
                h = min(self.options.step, target - t)
                x, t = x + h * self._dxdt(network, x), t + h
            out.append(x.copy())
        return np.array(out)

    def _steady_state(self, network: ReactionNetwork, tolerance: float) -> SteadyState:
        x, t = np.array(network.initial, dtype=float), 0.0
        while (residual := float(np.abs(self._dxdt(network, x)).max())) >= tolerance:
            x, t = x + self.options.step * self._dxdt(network, x), t + self.options.step
        return SteadyState(x, t, residual)


class DecayParameters(MethodParameters):
    hardware: str = option("crn_ode", "CRN simulator config", metavar="CONFIG", input="config")
    rate: float = option(2.0, "decay rate k of A -> 0 (1/time unit)", gt=0)
    until: float = option(1.0, "last time (time units)", gt=0)


def run_decay(p: DecayParameters, run: RunContext) -> Outcome:
    backend = run.backend("hardware", CRNBackend)
    build = NetworkBuilder()
    build.reaction([build.species("A", 1.0)], [], p.rate)
    times = np.linspace(0, p.until, 11)
    run.begin(p.model_dump(exclude={"hardware"}))
    found = backend.simulate(build.build(), times)[:, 0]
    exact = np.exp(-p.rate * times)
    table = pa.table({"time": times, "a": found, "exact": exact})
    return Outcome(table, {"max_error": float(np.abs(found - exact).max())})


METHOD = Method(
    name="toy-decay",
    help="A -> 0 on any CRN backend, against exp(-kt)",
    description="Simulate first-order decay and compare it with the closed form.",
    parameters=DecayParameters,
    run=lambda: run_decay,
    backends={"hardware": CRNBackend},
)
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the toy module and its dist-info (entry points for one backend and
    one method), as `pip install` of a plugin would leave them."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "substrates_toy.py").write_text(TOY)
    info = root / "substrates_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: substrates-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[substrates.backends]\ntoy.euler = substrates_toy:EulerBackend\n\n"
        "[substrates.methods]\ntoy-decay = substrates_toy:METHOD\n"
    )
    (root / "toy_euler.yaml").write_text(
        "substrate: crn\nbackend: toy.euler\noptions:\n  step: 0.0001\n"
    )
    (root / "toy_coarse.yaml").write_text(
        "substrate: crn\nbackend: toy.euler\noptions:\n  step: 0.05\n"
    )
    # two binary variables and one factor between them (UAI MARKOV): a CRN of a few species
    (root / "pair.uai").write_text("MARKOV\n2\n2 2\n1\n2 0 1\n\n4\n0.9 0.1 0.2 0.8\n")
    return root


def _substrates(plugin: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), *sys.path])}
    return subprocess.run(
        [sys.executable, "-m", "substrates", *args],
        cwd=plugin,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_a_plugin_method_runs_on_a_shipped_and_on_a_plugin_backend(plugin: Path) -> None:
    for config in ("crn_ode", "toy_euler.yaml"):
        result = _substrates(plugin, "run", "toy-decay", "--hardware", config, "--out", "runs")
        assert result.returncode == 0, result.stderr
        assert "max_error" in result.stdout or "max error" in result.stdout
    folders = sorted((plugin / "runs").iterdir())
    records = [json.loads((f / "provenance.json").read_text()) for f in folders]
    assert {r["backend"]["backend"] for r in records} == {"crn.ode", "toy.euler"}
    for record in records:
        assert record["status"] == "complete" and record["wall_time_s"] >= 0
        assert record["parameters"] == {"rate": 2.0, "until": 1.0}
    errors = {r["backend"]["backend"]: r["summary"]["max_error"] for r in records}
    assert errors["crn.ode"] < 1e-6  # against the closed form, not against each other
    assert 1e-6 < errors["toy.euler"] < 1e-4  # Euler's first-order error at h = 1e-4


def test_a_plugin_backend_serves_the_shipped_methods(plugin: Path) -> None:
    """crn-validate declares its backend by interface, so the toy simulator is accepted,
    and its CRN rests where BP and the exact marginals say (a tree: they agree)."""
    arguments = ["--simulator", "toy_coarse.yaml", "--graph", "pair.uai", "--reduce", "none"]
    arguments += ["--perturbation", "none", "--starts", "0", "--tolerance", "1e-7"]
    result = _substrates(plugin, "run", "crn-validate", *arguments, "--out", "crn")
    assert result.returncode == 0, result.stderr
    (folder,) = (plugin / "crn").iterdir()
    record = json.loads((folder / "provenance.json").read_text())
    assert record["backend"]["backend"] == "toy.euler" and record["status"] == "complete"
    assert record["summary"]["differences"]["crn_original vs exact"] < 1e-5


def test_the_framework_checks_the_declared_interface(plugin: Path) -> None:
    result = _substrates(
        plugin, "run", "toy-decay", "--hardware", "aer_statevector", "--out", "bad"
    )
    assert result.returncode == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert line.startswith("error: --hardware: ") and "toy-decay needs a CRN backend" in line
    result = _substrates(plugin, "run", "toy-decay", "--rate", "-1", "--out", "bad")
    assert result.returncode == 2 and "--rate: Input should be greater than 0" in result.stderr
    assert not (plugin / "bad").exists()  # nothing written for bad input
    listing = _substrates(plugin, "run", "toy-decay", "--help")
    assert "decay rate k of A -> 0" in listing.stdout
    assert "toy.euler" in _substrates(plugin, "backends").stdout
