"""substrates: methods written once, run on a simulator, a GPU or real hardware.

`import substrates` is light: no qiskit, jax, torch or mne until a backend computes.
"""

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("substrates")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

# In a source checkout, backends/, models/, datasets/, adapters/ and hardware_configs/ sit
# beside this folder; make them this package's subpackages, as the installed mapping does.
_checkout = Path(__file__).resolve().parent.parent
if (_checkout / "pyproject.toml").is_file() and (_checkout / "backends").is_dir():
    __path__.append(str(_checkout))

__all__ = ["__version__"]
