"""Simulated CML networks: synthetic rain, a random link network, the power-law forward
model, wet antennas, baseline drift, noise, quantization and missing samples. The truth
(rain fields, rain attenuation, path-averaged rain) is kept alongside."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import Field, model_validator

from ...errors import SubstratesError
from ..base import BackendOptions, Tier
from .base import CMLCapabilities, CMLSimulatorBackend, Instant

if TYPE_CHECKING:
    import xarray as xr

    from ...datasets.cml.opensense import Cleaning

BASE_LOSS_DB = 55.0
"""tsl − rsl of a dry link: free-space and equipment losses (dB)."""
TSL_DBM = 10.0
MAX_CELLS = 512


class SimOptions(BackendOptions):
    """Options of `cml.sim`.

    links: random links in a square domain of grid_cells × cell_km per side. start,
    duration_h, time_step_s: the simulated period. median_rain_mm_h, wet_fraction,
    velocity_km_h, spectrum_slope (β of the power spectrum |k|^−β), sigma_log (spread of log
    rain where wet), anisotropy and orientation_deg (correlation length along that bearing
    over that across it): the rain (see datasets.cml.rain_fields). noise_db: rsl noise std;
    rsl_step_db: rsl quantization; drift_db_per_h: baseline random walk; wet_antenna: add
    Pastorek 2021 wet-antenna attenuation, A_max (1 − exp(−d R^ζ)) with wet_antenna_pastorek
    = (A_max dB, ζ, d); missing_fraction: samples written as fill values. power_law_spread:
    (SD of ln k, SD of α) of each link's own k–R power law about ITU-R P.838-3's, drawn once
    per link (drop-size variability; the truth keeps each link's k_scale and alpha_shift;
    (0, 0): ITU's exactly). baseline_fluctuation_db and baseline_fluctuation_min: a
    stationary fluctuation of the dry baseline (humidity, temperature, multipath), an
    Ornstein–Uhlenbeck process of that SD (dB) and correlation time (minutes), on top of the
    random-walk drift. network: an OpenSense netCDF file or OpenMRG folder ("pycomlink": its
    example's 500 links) whose link geometry, frequencies and polarizations replace the
    random links (`links` then comes from the file and the square domain grows to hold the
    network, 2 km margin, in cells of cell_km). radar: rain fields from a radar file in
    place of the synthetic ones (RADOLAN as pycomlink ships it, "pycomlink" for its example
    file; needs `network`): a cell takes the mean of the radar pixels whose centres fall in
    it (the nearest pixel when none does), pixels without echo count as dry, each field
    holds over the interval it closes; `start` and `duration_h` must lie inside the file.
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
    spectrum_slope: float = Field(3.0, gt=0, le=6)
    sigma_log: float = Field(1.0, gt=0, le=3)
    anisotropy: float = Field(1.0, ge=1, le=20)
    orientation_deg: float = 0.0
    noise_db: float = Field(0.15, ge=0)
    rsl_step_db: float = Field(0.1, ge=0)
    drift_db_per_h: float = Field(0.1, ge=0)
    wet_antenna: bool = True
    wet_antenna_pastorek: tuple[float, float, float] = (14.0, 0.55, 0.1)
    missing_fraction: float = Field(0.002, ge=0, lt=1)
    power_law_spread: tuple[float, float] = (0.0, 0.0)
    baseline_fluctuation_db: float = Field(0.0, ge=0)
    baseline_fluctuation_min: float = Field(30.0, gt=0)
    network: str | None = None
    radar: str | None = None

    @model_validator(mode="after")
    def _links_or_network(self) -> SimOptions:
        fields = type(self).model_fields
        changed = [n for n in ("links", "grid_cells") if getattr(self, n) != fields[n].default]
        if self.network is not None and changed:  # defaults pass: to_dict writes them out
            raise ValueError("links and grid_cells come from the network file; leave them out")
        if self.radar is not None and self.network is None:
            raise ValueError("radar rain needs a network inside the radar's area (network: FILE)")
        if min(self.power_law_spread) < 0:
            raise ValueError("power_law_spread holds two SDs (of ln k and of α): neither < 0")
        return self


class SimBackend(CMLSimulatorBackend):
    """A synthetic link network observed through the full measurement model."""

    name: ClassVar[str] = "cml.sim"
    tier: ClassVar[Tier] = "simulator"
    Options: ClassVar[type[BackendOptions]] = SimOptions
    requires: ClassVar[tuple[str, ...]] = ("xarray",)

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
        if o.radar is None:
            model = RainFieldModel(
                size=cells,
                cell_km=o.cell_km,
                beta=o.spectrum_slope,
                wet_fraction=o.wet_fraction,
                median_mm_h=o.median_rain_mm_h,
                sigma_log=o.sigma_log,
                velocity_km_h=o.velocity_km_h,
                anisotropy=o.anisotropy,
                orientation_deg=o.orientation_deg,
            )
            fields = rain_fields(model, steps, step_min, seed=o.seed, device=self.torch_device)
        else:
            fields = self._radar_fields(network, cells, steps)
        along = path_rain(fields, o.cell_km, network, device=self.torch_device)
        sublinks = network.frequency.shape[1]
        k_scale, alpha_shift, fluctuation = self._own_draws(len(network.x0), steps, sublinks)
        attenuation = attenuation_along(along, network, k_scale, alpha_shift)
        averaged = np.repeat(along.mean(axis=-1)[..., None], sublinks, axis=-1)
        a_max, zeta, d = o.wet_antenna_pastorek
        wet_antenna = (
            wet_antenna_pastorek(averaged, a_max, zeta, d) if o.wet_antenna else 0 * averaged
        )
        observed = attenuation + wet_antenna
        drift = np.cumsum(
            rng.normal(0, o.drift_db_per_h * np.sqrt(step_min / 60), observed.shape), axis=0
        )
        drift += fluctuation
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
            "cml_id": ids,
            "sublink_id": [f"sublink_{i}" for i in range(sublinks)],
            "time": times.astype("datetime64[ns]"),
            "frequency": (link_dims, network.frequency, {"units": "GHz"}),
            "polarization": (link_dims, network.polarization),
            "length": ("cml_id", network.length, {"units": "km"}),
            **{k: ("cml_id", v) for k, v in network.latlon().items()},
        }
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
                    dims,
                    (BASE_LOSS_DB + drift).transpose(1, 2, 0),
                    {
                        "units": "dB",
                        "long_name": "tsl − rsl of the dry link (loss + drift + fluctuation)",
                    },
                ),
                "k_scale": ("cml_id", k_scale, {"long_name": "the link's k over ITU's"}),
                "alpha_shift": ("cml_id", alpha_shift, {"long_name": "the link's α less ITU's"}),
            },
            coords={
                "time": coords["time"],
                "y_km": axis,
                "x_km": axis,
                "cml_id": ids,
                "sublink_id": coords["sublink_id"],
            },
            attrs={"origin_lat": network.origin[0], "origin_lon": network.origin[1]},
        )
        dataset, cleaning = validate(dataset, source=self.name)
        return dataset, cleaning, truth

    def _own_draws(
        self, links: int, steps: int, sublinks: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each link's k scale and α shift (power_law_spread) and the baseline fluctuation
        (steps, links, sublinks) dB, from a stream of their own: a simulation without them
        draws the same numbers as before they existed."""
        from scipy.signal import lfilter

        o = self.options
        rng = np.random.default_rng([o.seed, 838])
        log_k_sd, alpha_sd = o.power_law_spread
        k_scale = np.exp(rng.normal(0.0, log_k_sd, links)) if log_k_sd else np.ones(links)
        alpha_shift = rng.normal(0.0, alpha_sd, links) if alpha_sd else np.zeros(links)
        fluctuation = np.zeros((steps, links, sublinks))
        if o.baseline_fluctuation_db:
            keep = np.exp(-o.time_step_s / 60 / o.baseline_fluctuation_min)
            shocks = rng.standard_normal(fluctuation.shape)
            shocks[1:] *= np.sqrt(1 - keep**2)  # the first step from the stationary law
            fluctuation = o.baseline_fluctuation_db * lfilter([1.0], [1.0, -keep], shocks, axis=0)
        return k_scale, alpha_shift, fluctuation

    def _radar_fields(self, network: Any, cells: int, steps: int) -> np.ndarray:
        """The radar's rain (mm/h) on the simulation grid at each step (see `radar`)."""
        from scipy.spatial import cKDTree

        from ...datasets.cml.network import KM_PER_DEGREE
        from ...datasets.cml.opensense import CMLDataError
        from ...datasets.cml.radar_reference import (
            areal_reference,
            cell_means,
            pycomlink_references,
        )

        o = self.options
        path = pycomlink_references()[0] if o.radar == "pycomlink" else o.radar
        times = np.datetime64(o.start, "ns") + np.arange(steps) * np.timedelta64(o.time_step_s, "s")
        days = np.unique(
            np.concatenate([times, times[-1:] + np.timedelta64(1, "h")]).astype("datetime64[D]")
        ).astype(str)
        try:
            radar = areal_reference(str(path), list(days))
        except CMLDataError as err:
            raise SubstratesError(f"cml.sim radar: {err}") from None
        frames = radar["time"].values
        interval = np.median(np.diff(frames[:100]))
        # a frame holds the mean over the interval it closes: (frame − interval, frame]
        index = np.searchsorted(frames, times, side="left")
        if times[0] <= frames[0] - interval or index[-1] >= len(frames):
            span = [np.datetime_as_string(t, "m") for t in frames[[0, -1]]]
            raise SubstratesError(
                f"cml.sim radar: {o.start} + {o.duration_h:g} h is outside "
                f"the radar's {span[0]} to {span[1]}"
            )
        lat0, lon0 = network.origin  # the network's frame, as network_from_dataset's
        east = (radar["longitudes"].values - lon0) * KM_PER_DEGREE * np.cos(np.radians(lat0))
        north = (radar["latitudes"].values - lat0) * KM_PER_DEGREE
        axis = (np.arange(cells) + 0.5) * o.cell_km
        mine_north, mine_east = np.meshgrid(axis, axis, indexing="ij")  # row = north
        distance, nearest = cKDTree(np.stack([east.ravel(), north.ravel()], 1)).query(
            np.stack([mine_east.ravel(), mine_north.ravel()], 1)
        )
        if np.median(distance) > 2 * o.cell_km + 2:
            raise SubstratesError("cml.sim radar: the network lies outside the radar's area")
        used = np.unique(index)
        pixels = np.nan_to_num(radar["rain"].isel(time=used).values.reshape(len(used), -1))
        # cells larger than a pixel: the mean of theirs; smaller: the nearest pixel
        rain = cell_means(east, north, pixels, o.cell_km, cells, cells).reshape(len(used), -1)
        rain = np.where(np.isnan(rain), pixels[:, nearest], rain)
        return rain.reshape(len(used), cells, cells)[np.searchsorted(used, index)]

    def _network(self, rng: np.random.Generator) -> tuple[Any, int]:
        """The link network and the grid's cells per side: random, or from `network`."""
        from ...datasets.cml.network import network_from_dataset, random_network
        from ...datasets.cml.opensense import CMLDataError, open_dataset, pycomlink_example

        o = self.options
        if o.network is None:
            return random_network(o.links, o.grid_cells * o.cell_km, rng), o.grid_cells
        try:
            links, _ = open_dataset(pycomlink_example() if o.network == "pycomlink" else o.network)
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

    def _ground_truth(self, start: Instant, end: Instant) -> xr.Dataset:
        return self._window(self._simulation[2], start, end)

    @property
    def capabilities(self) -> CMLCapabilities:
        o = self.options
        start = np.datetime64(o.start)
        end = start + np.timedelta64(int(o.duration_h * 3600) - o.time_step_s, "s")
        links, sublinks = (o.links, 2) if o.network is None else self.dataset["rsl"].shape[:2]
        return CMLCapabilities(links, sublinks, str(start), str(end), float(o.time_step_s))
