"""An example substrates plugin: `quantum.numpy`, a state-vector simulator in numpy."""

from .backend import NumpyQubitBackend, NumpyQubitOptions

__all__ = ["NumpyQubitBackend", "NumpyQubitOptions"]
