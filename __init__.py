"""substrates: methods written once, run on a simulator, a GPU or real hardware.

The front door, loaded lazily: `import substrates` imports none of qiskit, torch, jax, mne
or numba; each name below is imported on first use. `__init__.pyi` lists them with their
types for type checkers and editors.

    >>> import substrates
    >>> backend = substrates.load_backend("aer_statevector")
    >>> sorted(substrates.list_backends()[0].to_dict())
    ['name', 'reason', 'substrate', 'tier', 'usable']
"""

from importlib.metadata import PackageNotFoundError, version

import lazy_loader

try:
    __version__ = version("substrates")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

__getattr__, _, _lazy = lazy_loader.attach_stub(__name__, __file__)
__all__ = [*_lazy, "__version__"]


def __dir__() -> list[str]:
    return __all__
