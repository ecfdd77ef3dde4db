"""Shared fixtures: an isolated local job store, simulated MEA sessions made once per test
process; one persistent JAX compilation cache for the test process and every command it
starts; the lanes' rules: what must carry the `science` marker (checked on collection), one
thread per xdist worker, one memory-heavy test at a time across workers."""

from __future__ import annotations

import ast
import contextlib
import fcntl
import inspect
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Every `substrates run hh-fit` the tests start is a new process that compiles the same
# jaxley simulations again (~20 s of a 60 s fit). A persistent cache, shared by all of
# them, skips that after the first; it is keyed on the program, jax's version and its
# flags, so what runs is what would have been compiled (a fit from a warm cache gives
# the same results). Set before anything imports jax; a cache the caller names is kept.
os.environ.setdefault(
    "JAX_COMPILATION_CACHE_DIR",
    str(Path(tempfile.gettempdir()) / f"substrates-tests-jax-cache-{os.getuid()}"),
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

# libRoadRunner crashes building any model in a process that imported NEURON before it; the
# crn.roadrunner backend runs it in a process of its own, but test_sbml's reference runs it
# in the test worker, which also runs NEURON's tests, in any order.
with contextlib.suppress(ImportError):
    import roadrunner  # noqa: F401


ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}
"""Thread pools of one per xdist worker: two workers with two threads each on two cores
spent a third of their time on each other (a subset of the suite: 222 s -> 156 s wall,
359 -> 232 CPU s). The caller's own settings are kept."""


def pytest_configure(config: pytest.Config) -> None:
    """With several workers, each (and every command a test starts) gets ONE_THREAD; set
    here, in the process that starts the workers, before it does."""
    workers = config.getoption("numprocesses", default=None)
    if isinstance(workers, int) and workers > 1:
        for name, value in ONE_THREAD.items():
            os.environ.setdefault(name, value)


@pytest.fixture(autouse=True)
def _one_memory_heavy_test_at_a_time(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """A test marked memory_heavy holds a lock that every worker of this run shares (a
    file beside the workers' temporary folders), so two never run at once on 24 GiB."""
    if request.node.get_closest_marker("memory_heavy") is None:
        yield
        return
    lock = tmp_path_factory.getbasetemp().parent / "memory-heavy.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


@pytest.fixture(autouse=True)
def local_job_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test gets its own store for runtime local-mode jobs."""
    store = tmp_path_factory.mktemp("local-jobs")
    monkeypatch.setenv("SUBSTRATES_LOCAL_JOBS", str(store))
    return store


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/plugin built and installed into a folder of its own (its entry point and
    dist-info included): put it on PYTHONPATH and `quantum.numpy` is registered."""
    site = tmp_path_factory.mktemp("plugin-site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(Path(__file__).resolve().parents[1] / "examples" / "plugin"),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return site


@pytest.fixture(scope="session")
def mea_session() -> Callable[..., Any]:
    """`mea_session(**options)`: the `mea.jaxley` backend of those options, one per set of
    options for the whole test process. Its session (recording, ground truth) is simulated
    on first use and kept, so every test of the same options shares one simulation."""
    from substrates.backends.registry import create_backend

    made: dict[str, Any] = {}

    def session(**options: Any) -> Any:
        key = json.dumps(options, sort_keys=True)
        if key not in made:
            made[key] = create_backend("mea.jaxley", options)
        return made[key]

    return session


# ---- the lanes -------------------------------------------------------------------------

SCIENCE_CALLS = {"fit_cell": "a whole HH fit (NPE, refinement, calibration)"}
"""Functions a test may only call in the science lane -> what they start."""
SCIENCE_CONFIGS = {"mea_sim_512": "the 512-electrode, three-cell session"}
"""Shipped configs whose backend does science-lane work when it is used: a conformance
case on one of them, or a test passing its name, runs that work."""
SCIENCE_STRINGS = {
    "--simulations": "an hh-fit run through to its fit",
    "--bank": "an hh-fit run through to its fits from a bank",
    **SCIENCE_CONFIGS,
}
"""Strings (a CLI flag, a config's name) only the science lane may pass -> what passing
them starts."""


def _code(function: Callable[..., Any]) -> tuple[set[str], set[str]]:
    """(names it calls, string constants) in the body of `function`, its docstring and
    decorators left out; two empty sets where its source is unknown."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return set(), set()
    assert isinstance(tree, ast.FunctionDef | ast.AsyncFunctionDef)
    body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
    calls: set[str] = set()
    strings: set[str] = set()
    for node in (n for statement in body for n in ast.walk(statement)):
        if isinstance(node, ast.Call):
            func = node.func
            calls.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    return calls, strings


def _what_it_starts(item: pytest.Function) -> set[str]:
    """What of SCIENCE_CALLS, SCIENCE_STRINGS and SCIENCE_CONFIGS the test starts: named
    in the body of the test, of a fixture it uses, or of a function of their module they
    call; or, in the conformance suite, the config of its case."""
    found: set[str] = set()
    if item.path.parent.name == "conformance":  # a case runs its backend through the suite
        found |= {what for name, what in SCIENCE_CONFIGS.items() if f"[{name}]" in item.name}
    functions = [item.function]
    for definitions in item._fixtureinfo.name2fixturedefs.values():
        functions += [d.func for d in definitions]
    seen: set[Callable[..., Any]] = set()
    while functions:
        function = functions.pop()
        if function in seen:
            continue
        seen.add(function)
        calls, strings = _code(function)
        found |= {what for name, what in SCIENCE_CALLS.items() if name in calls}
        found |= {what for text, what in SCIENCE_STRINGS.items() if text in strings}
        module = sys.modules.get(function.__module__)
        for name in calls:
            helper = getattr(module, name, None)
            if inspect.isfunction(helper) and helper.__module__ == function.__module__:
                functions.append(helper)
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The lanes' rule: a test that starts what SCIENCE_CALLS, SCIENCE_STRINGS and
    SCIENCE_CONFIGS name (a fit, an hh-fit run, the 512-electrode session) carries the
    `science` marker; one that does not stops the run on collection, naming it. (A test
    file runs on one xdist worker: `--dist loadfile` in pyproject.toml.)"""
    unmarked = []
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        if item.get_closest_marker("science") is None:
            starts = _what_it_starts(item)
            if starts:
                unmarked.append(f"{item.nodeid}: starts {', '.join(sorted(starts))}")
    if unmarked:
        raise pytest.UsageError(
            "these tests start science-lane work without @pytest.mark.science "
            "(CONTRIBUTING.md, 'Run the tests'):\n  " + "\n  ".join(unmarked)
        )
