"""Hardware configs: load, validate, build the backend they select."""

from .build import backend_from_config
from .errors import ConfigError
from .load import HardwareConfig, ResolvedConfig, config_path, load_config, shipped_configs

__all__ = [
    "ConfigError",
    "HardwareConfig",
    "ResolvedConfig",
    "backend_from_config",
    "config_path",
    "load_config",
    "shipped_configs",
]
