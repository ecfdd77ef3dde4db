"""Config -> backend: the one place a config, or a registry name, becomes a running backend."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ...backends.base import Backend
from ...backends.registry import create_backend, names
from ...errors import BackendUnavailableError
from .errors import ConfigError
from .load import ResolvedConfig, load_config, validated

if TYPE_CHECKING:
    from ...backends.cml.base import CMLBackend
    from ...backends.crn.base import CRNBackend
    from ...backends.events.base import EventsBackend
    from ...backends.mea.base import MEABackend
    from ...backends.quantum.base import QuantumBackend
    from .names import CMLName, CRNName, EventsName, MEAName, QuantumName


def backend_from_config(config: ResolvedConfig | str | Path) -> Backend:
    """Build the backend a config selects; a backend that can't run here is a ConfigError."""
    resolved = config if isinstance(config, ResolvedConfig) else load_config(config)
    try:
        return resolved.backend_class(resolved.options)
    except BackendUnavailableError as err:
        chosen_by_options = resolved.tier != resolved.backend_class.tier  # e.g. a device name
        field = "options" if chosen_by_options else "backend"
        raise ConfigError(
            resolved.path,
            field,
            f"{resolved.config.backend} ({resolved.tier} tier) cannot run here: {err.reason}",
        ) from None


@overload
def load_backend(config: QuantumName, /, **options: Any) -> QuantumBackend: ...
@overload
def load_backend(config: MEAName, /, **options: Any) -> MEABackend: ...
@overload
def load_backend(config: EventsName, /, **options: Any) -> EventsBackend: ...
@overload
def load_backend(config: CRNName, /, **options: Any) -> CRNBackend: ...
@overload
def load_backend(config: CMLName, /, **options: Any) -> CMLBackend: ...
@overload
def load_backend(config: str | os.PathLike[str] | ResolvedConfig, /, **options: Any) -> Backend: ...
def load_backend(config: str | os.PathLike[str] | ResolvedConfig, /, **options: Any) -> Backend:
    """The backend a hardware config selects, ready to compute.

    config: a shipped config's name ('aer_statevector'), a config file, or a registry name
    ('quantum.aer'); options: override the config's options (or, with a registry name, are
    the options). Nothing computes yet; a backend that cannot run here (missing package,
    no GPU, no credentials) raises with the reason, as `substrates check` prints it.

    Examples:
        >>> import substrates
        >>> from substrates.datasets.quantum.generators import ghz
        >>> backend = substrates.load_backend("aer_statevector")
        >>> [round(p, 12) for p in backend.probabilities([ghz(2)])[0].values()]
        [0.5, 0.5]
        >>> substrates.load_backend("quantum.aer", method="matrix_product_state").name
        'quantum.aer'
    """
    if isinstance(config, str) and config in names():
        return create_backend(config, options)
    resolved = config if isinstance(config, ResolvedConfig) else load_config(config)
    if options:
        merged = {**resolved.options.model_dump(), **options}
        chosen = validated(resolved.path, resolved.backend_class.Options, merged, "options.")
        resolved = ResolvedConfig(resolved.path, resolved.config, resolved.backend_class, chosen)
    return backend_from_config(resolved)
