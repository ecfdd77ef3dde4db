"""Simulated CML networks: synthetic rain, a random link network, the power-law forward
model, wet antennas, baseline drift, noise, quantization and missing samples. The truth
(rain fields, rain attenuation, path-averaged rain) is kept alongside."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field, model_validator

from ..base import BackendOptions
from ..errors import SubstratesError
from .base import CMLCapabilities, CMLSimulatorBackend

if TYPE_CHECKING:
    import xarray as xr

    from ...datasets.cml.opensense import Cleaning

BASE_LOSS_DB = 55.0
"""tsl − rsl of a dry link: free-space and equipment losses (dB)."""
TSL_DBM = 10.0
MAX_CELLS = 512


class SimOptions(BackendOptions):
    """Options of `cml.sim`.

    links: random links in a square domain of grid_cells × cell_km per side.
    start, duration_h, time_step_s: the simulated period. median_rain_mm_h, wet_fraction,
    velocity_km_h: the rain (see datasets.cml.rain_fields). noise_db: rsl noise std;
    rsl_step_db: rsl quantization; drift_db_per_h: baseline random walk; wet_antenna: add
    Pastorek 2021 wet-antenna attenuation; missing_fraction: samples written as fill values.
    network: an OpenSense netCDF file or OpenMRG folder whose link geometry, frequencies and
    polarizations replace the random links (`links` then comes from the file and the
    square domain grows to hold the network, 2 km margin, in cells of cell_km).
    """

    seed: int = 0
    links: int = Field(50, ge=1, le=5000)
    grid_cells: int = Field(64, ge=16, le=MAX_CELLS)
    cell_km: float = Field(0.5, gt=0)
    start: str = "2020-06-01T00:00"
    duration_h: float = Field(6.0, gt=0, le=48)
    time_step_s: int = Field(60, ge=10, le=3600)
    median_rain_mm_h: float = Field(2.0, gt=0)
    wet_fraction: float = Field(0.35, gt=0, lt=1)
    velocity_km_h: tuple[float, float] = (20.0, 10.0)
    noise_db: float = Field(0.15, ge=0)
    rsl_step_db: float = Field(0.1, ge=0)
    drift_db_per_h: float = Field(0.1, ge=0)
    wet_antenna: bool = True
    missing_fraction: float = Field(0.002, ge=0, lt=1)
    network: str | None = None

    @model_validator(mode="after")
    def _links_or_network(self) -> SimOptions:
        if self.network is not None and {"links", "grid_cells"} & self.model_fields_set:
            raise ValueError("links and grid_cells come from the network file; leave them out")
        return self


class SimBackend(CMLSimulatorBackend):
    """A synthetic link network observed through the full measurement model."""

    name: ClassVar[str] = "cml.sim"
    tier: ClassVar = "simulator"
    Options: ClassVar = SimOptions
    requires: ClassVar = ("xarray",)

    options: SimOptions
    torch_device: ClassVar[str | None] = None
    """None: numpy. The GPU tier computes the fields and path integrals with torch."""

    @cached_property
    def _simulation(self) -> tuple[Any, Any, Any]:
        import xarray as xr

        from ...datasets.cml.network import (
            attenuation_along,
            path_rain,
            wet_antenna_pastorek,
        )
        from ...datasets.cml.opensense import validate
        from ...datasets.cml.rain_fields import RainFieldModel, rain_fields

        o = self.options
        rng = np.random.default_rng(o.seed)
        steps = round(o.duration_h * 3600 / o.time_step_s)
        step_min = o.time_step_s / 60
        network, cells = self._network(rng)
        model = RainFieldModel(
            size=cells, cell_km=o.cell_km, wet_fraction=o.wet_fraction,
            median_mm_h=o.median_rain_mm_h, velocity_km_h=o.velocity_km_h,
        )  # fmt: skip
        fields = rain_fields(model, steps, step_min, seed=o.seed, device=self.torch_device)
        along = path_rain(fields, o.cell_km, network, device=self.torch_device)
        attenuation = attenuation_along(along, network)  # (time, link, sublink)
        sublinks = network.frequency.shape[1]
        averaged = np.repeat(along.mean(axis=-1)[..., None], sublinks, axis=-1)
        wet_antenna = wet_antenna_pastorek(averaged) if o.wet_antenna else 0 * averaged
        observed = attenuation + wet_antenna
        drift = np.cumsum(
            rng.normal(0, o.drift_db_per_h * np.sqrt(step_min / 60), observed.shape), axis=0
        )
        rsl = TSL_DBM - BASE_LOSS_DB - observed - drift + rng.normal(0, o.noise_db, observed.shape)
        if o.rsl_step_db:
            rsl = np.round(rsl / o.rsl_step_db) * o.rsl_step_db
        tsl = np.full_like(rsl, TSL_DBM)
        gaps = rng.random(rsl.shape) < o.missing_fraction
        rsl[gaps], tsl[gaps] = -99.9, 255.0

        times = np.datetime64(o.start) + np.arange(steps) * np.timedelta64(o.time_step_s, "s")
        ids = [f"sim{i}" for i in range(len(network.x0))]
        link_dims, dims = ("cml_id", "sublink_id"), ("cml_id", "sublink_id", "time")
        coords = {
            "cml_id": ids, "sublink_id": [f"sublink_{i}" for i in range(sublinks)],
            "time": times.astype("datetime64[ns]"),
            "frequency": (link_dims, network.frequency, {"units": "GHz"}),
            "polarization": (link_dims, network.polarization),
            "length": ("cml_id", network.length, {"units": "km"}),
            **{k: ("cml_id", v) for k, v in network.latlon().items()},
        }  # fmt: skip
        dataset = xr.Dataset(
            {
                "rsl": (dims, rsl.transpose(1, 2, 0), {"units": "dBm"}),
                "tsl": (dims, tsl.transpose(1, 2, 0), {"units": "dBm"}),
            },
            coords=coords,
        )
        axis = (np.arange(cells) + 0.5) * o.cell_km
        truth = xr.Dataset(
            {
                "rain": (("time", "y_km", "x_km"), fields, {"units": "mm/h"}),
                "A_rain": (dims, attenuation.transpose(1, 2, 0), {"units": "dB"}),
                "R_path": (dims, averaged.transpose(1, 2, 0), {"units": "mm/h"}),
                "A_wet_antenna": (dims, wet_antenna.transpose(1, 2, 0), {"units": "dB"}),
                "baseline": (
                    dims, (BASE_LOSS_DB + drift).transpose(1, 2, 0),
                    {"units": "dB", "long_name": "tsl − rsl of the dry link (loss + drift)"},
                ),
            },
            coords={"time": coords["time"], "y_km": axis, "x_km": axis, "cml_id": ids,
                    "sublink_id": coords["sublink_id"]},
            attrs={"origin_lat": network.origin[0], "origin_lon": network.origin[1]},
        )  # fmt: skip
        dataset, cleaning = validate(dataset, source=self.name)
        return dataset, cleaning, truth

    def _network(self, rng: np.random.Generator) -> tuple[Any, int]:
        """The link network and the grid's cells per side: random, or from `network`."""
        from ...datasets.cml.network import network_from_dataset, random_network
        from ...datasets.cml.opensense import CMLDataError, open_dataset

        o = self.options
        if o.network is None:
            return random_network(o.links, o.grid_cells * o.cell_km, rng), o.grid_cells
        try:
            links, _ = open_dataset(o.network)
        except CMLDataError as err:
            raise SubstratesError(f"cml.sim network: {err}") from None
        network, side_km = network_from_dataset(links, margin_km=2.0)
        cells = int(np.ceil(side_km / o.cell_km))
        if cells > MAX_CELLS:
            raise SubstratesError(
                f"cml.sim network spans {side_km:.0f} km: {cells} cells of {o.cell_km} km per "
                f"side, more than {MAX_CELLS}; raise cell_km to {side_km / MAX_CELLS:.2f} or more"
            )
        return network, cells

    @property
    def dataset(self) -> xr.Dataset:
        return self._simulation[0]

    @property
    def cleaning(self) -> Cleaning:
        return self._simulation[1]

    def _ground_truth(self, start: Any, end: Any) -> xr.Dataset:
        return self._window(self._simulation[2], start, end)

    @property
    def capabilities(self) -> CMLCapabilities:
        o = self.options
        start = np.datetime64(o.start)
        end = start + np.timedelta64(int(o.duration_h * 3600) - o.time_step_s, "s")
        links, sublinks = (o.links, 2) if o.network is None else self.dataset["rsl"].shape[:2]
        return CMLCapabilities(links, sublinks, str(start), str(end), float(o.time_step_s))
