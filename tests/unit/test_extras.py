"""Extras never break the command line: with every optional package hidden (imports fail,
find_spec finds nothing), `substrates backends` still lists all backends, naming the pip
command of each missing extra, and a config of a missing extra is one line with exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from substrates.backends.registry import names

OPTIONAL = (
    "numba",
    "torch",
    "jax",
    "jaxley",
    "xarray",
    "netCDF4",
    "pycomlink",
    "pykrige",
    "pynwb",
    "neo",
    "mne",
    "spikeinterface",
    "probeinterface",
    "sbi",
    "roadrunner",
    "libsbml",
    "dv_processing",
    "aedat",
    "h5py",
    "imageio",
    "neuromorphic_drivers",
    "dask",
    "distributed",
    "pandas",
    "bottleneck",
)

HIDE = f"""
import importlib.abc, importlib.util, sys
HIDDEN = {OPTIONAL!r}
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hide())
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, package=None: (
    None if name.split(".")[0] in HIDDEN else real(name, package))
from substrates.cli import main
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = HIDE + f"sys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_backends_lists_every_backend_without_the_optional_packages() -> None:
    result = _cli("backends")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[1:]}
    assert set(rows) == set(names())
    for extra in ("cml", "crn", "events", "mea"):
        missing = [n for n in names(extra) if f"pip install 'substrates[{extra}]'" in rows[n]]
        assert missing, f"no backend of [{extra}] names its pip command"
    assert rows["quantum.aer"].endswith("usable")


@pytest.mark.parametrize("config", ["crn_ode", "events_sim", "mea_sim", "cml_sim"])
def test_a_config_of_a_missing_extra_is_one_line(config: str) -> None:
    result = _cli("check", config)
    assert result.returncode == 2 and "missing Python package" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("event-layers", "events"),
        ("cml-reconstruct", "cml"),
        ("crn-validate", "crn"),
        ("hh-fit", "mea"),
    ],
)
def test_every_method_of_a_missing_extra_is_one_line_naming_it(method: str, extra: str) -> None:
    """Method modules import their substrate's packages when they run: a missing one is the
    install hint (was exit 70: 'unexpected ModuleNotFoundError: numba')."""
    result = _cli("run", method)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"pip install 'substrates[{extra}]'" in line and "Traceback" not in line
