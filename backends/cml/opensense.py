"""Real CML data from operators: OpenSense-convention netCDF files (or pycomlink's layout),
and the OpenMRG layout (a folder with cml.nc and cml_metadata.csv).

Without a path, the backend reads the real data shipped inside the pycomlink wheel:
500 links with two sublinks each, one-minute samples, 10–20 May 2018.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from ..base import BackendOptions
from .base import CMLBackend


class OpenSenseOptions(BackendOptions):
    """Options of `cml.opensense`. path: an OpenSense netCDF file, or a folder in the
    OpenMRG layout (cml.nc + cml_metadata.csv); None reads pycomlink's example data."""

    path: str | None = None


class OpenSenseBackend(CMLBackend):
    """Link metadata and rsl/tsl series from a file, validated on open."""

    name: ClassVar[str] = "cml.opensense"
    tier: ClassVar = "hardware"
    Options: ClassVar = OpenSenseOptions
    requires: ClassVar = ("xarray", "netCDF4", "pycomlink")

    options: OpenSenseOptions

    @cached_property
    def _opened(self) -> tuple[Any, Any]:
        from ...datasets.cml.opensense import (
            open_dataset,
            pycomlink_example,
        )

        return open_dataset(self.options.path or pycomlink_example())

    @property
    def dataset(self) -> Any:
        """The whole file, lazily: nothing is read until a range is loaded."""
        return self._opened[0]

    @property
    def cleaning(self) -> Any:
        """What validation changed so far (renames, spellings, fill values masked)."""
        return self._opened[1]
