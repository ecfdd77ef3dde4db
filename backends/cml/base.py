"""The CML interface: link geometry plus attenuation time series for a time range.

`load` validates the range, then reads the implementation's `dataset`; a simulator also
gives the `ground_truth` it simulated the links from.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ...errors import CapabilityError
from ..base import Backend, Capabilities

if TYPE_CHECKING:
    import xarray as xr

    from ...datasets.cml.opensense import Cleaning

Instant = str | np.datetime64 | datetime
"""A time: an ISO 8601 string ('2021-01-01T02:00'), a numpy datetime64 or a datetime (UTC)."""


@dataclass(frozen=True)
class CMLCapabilities(Capabilities):
    """What a CML source holds.

    links: number of cml_id; sublinks: sublinks per link; start/end: ISO times covered
    (None: unbounded, e.g. a simulator); time_step_s: sampling interval in seconds.
    """

    links: int
    sublinks: int
    start: str | None
    end: str | None
    time_step_s: float


class CMLBackend(Backend):
    """A source of CML data in the OpenSense convention (see datasets/cml/opensense.py)."""

    substrate: ClassVar[str] = "cml"
    extra: ClassVar[str] = "cml"

    def validate(self, start: Instant, end: Instant) -> None:
        """Refuse a time range the source does not cover, before reading anything; start
        and end are ISO 8601 strings or numpy datetimes."""
        caps = self.capabilities
        begin, finish = np.datetime64(start), np.datetime64(end)
        if finish <= begin:
            raise CapabilityError(f"time range is empty: {start} to {end}")
        if (
            caps.start is not None
            and caps.end is not None
            and (finish < np.datetime64(caps.start) or begin > np.datetime64(caps.end))
        ):
            raise CapabilityError(
                f"{self.name} holds {caps.start} to {caps.end}; nothing between {start} and {end}"
            )

    def load(self, start: Instant, end: Instant) -> xr.Dataset:
        """OpenSense xarray Dataset (rsl, tsl in dBm) for start <= time < end; operators' fill
        values become NaN and are counted in `cleaning`."""
        from ...datasets.cml.opensense import mask_fill_values

        self.validate(start, end)
        return mask_fill_values(self._window(self.dataset, start, end).load(), self.cleaning)

    def _window(self, data: xr.Dataset, start: Instant, end: Instant) -> xr.Dataset:
        """`data` for start <= time < end."""
        end_exclusive = np.datetime64(end) - np.timedelta64(1, "ns")
        return data.sel(time=slice(np.datetime64(start), end_exclusive))

    @property
    @abstractmethod
    def dataset(self) -> xr.Dataset:
        """Everything the source holds, validated, as a lazy OpenSense Dataset."""

    @property
    @abstractmethod
    def cleaning(self) -> Cleaning:
        """What validation and loading changed so far (datasets.cml.opensense.Cleaning)."""

    @property
    def capabilities(self) -> CMLCapabilities:
        """Read off the dataset (a simulator may answer without building it)."""
        times = self.dataset["time"].values
        return CMLCapabilities(
            links=self.dataset.sizes["cml_id"],
            sublinks=self.dataset.sizes["sublink_id"],
            start=str(times[0]),
            end=str(times[-1]),
            time_step_s=float(np.median(np.diff(times[:1000])) / np.timedelta64(1, "s")),
        )


class CMLSimulatorBackend(CMLBackend):
    """A simulated network: the links' data and the truth they were simulated from."""

    def ground_truth(self, start: Instant, end: Instant) -> xr.Dataset:
        """The rain field (mm/h) and, per sublink, rain attenuation, wet-antenna attenuation
        and dry baseline (dB) and path-averaged rain (mm/h) for start <= time < end; attrs
        origin_lat/lon place x_km, y_km (cell centres) on the globe."""
        self.validate(start, end)
        return self._ground_truth(start, end)

    @abstractmethod
    def _ground_truth(self, start: Instant, end: Instant) -> xr.Dataset: ...
