# The public API of `substrates`, for type checkers; __init__.py loads each name lazily
# from the module named here (lazy_loader.attach_stub reads this file).

from .adapters.config.build import load_backend
from .adapters.config.errors import ConfigError
from .adapters.methods.registry import list_methods
from .adapters.methods.run_method import run
from .adapters.runs.run import Run
from .backends.base import Backend
from .backends.cml.base import CMLBackend
from .backends.crn.base import CRNBackend
from .backends.events.base import EventsBackend
from .backends.mea.base import MEABackend
from .backends.quantum.base import QuantumBackend
from .backends.registry import BackendStatus, list_backends
from .errors import (
    BackendUnavailableError,
    CapabilityError,
    InputFileError,
    OptionError,
    SubstratesError,
)

__version__: str

__all__ = [
    "Backend",
    "BackendStatus",
    "BackendUnavailableError",
    "CMLBackend",
    "CRNBackend",
    "CapabilityError",
    "ConfigError",
    "EventsBackend",
    "InputFileError",
    "MEABackend",
    "OptionError",
    "QuantumBackend",
    "Run",
    "SubstratesError",
    "__version__",
    "list_backends",
    "list_methods",
    "load_backend",
    "run",
]
