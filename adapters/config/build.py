"""Config -> backend: the one place a config becomes a running backend."""

from __future__ import annotations

from pathlib import Path

from substrates.backends.base import Backend
from substrates.backends.errors import BackendUnavailableError

from .errors import ConfigError
from .load import ResolvedConfig, load_config


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
