"""substrates: methods written once, run on a simulator, a GPU or real hardware.

`import substrates` is light: no qiskit, jax, torch or mne until a backend computes.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("substrates")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
