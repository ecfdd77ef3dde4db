"""Link networks and the forward operator: rain field -> path-integrated attenuation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .itu_p838 import k_alpha

BANDS_GHZ = (15.0, 18.0, 23.0, 38.0)
KM_PER_DEGREE = 111.32


@dataclass(frozen=True)
class LinkNetwork:
    """Link end points in km in a local east/north frame, per-sublink frequency (GHz) and
    polarization ('h'/'v'); `origin` (lat, lon) places the frame on the globe."""

    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    frequency: np.ndarray  # (links, sublinks)
    polarization: np.ndarray  # (links, sublinks)
    origin: tuple[float, float] = (57.7, 11.97)

    @property
    def length(self) -> np.ndarray:
        return np.hypot(self.x1 - self.x0, self.y1 - self.y0)

    def latlon(self) -> dict[str, np.ndarray]:
        lat0, lon0 = self.origin
        per_lon = KM_PER_DEGREE * np.cos(np.radians(lat0))
        return {
            "site_0_lat": lat0 + self.y0 / KM_PER_DEGREE,
            "site_0_lon": lon0 + self.x0 / per_lon,
            "site_1_lat": lat0 + self.y1 / KM_PER_DEGREE,
            "site_1_lon": lon0 + self.x1 / per_lon,
        }


def random_network(links: int, domain_km: float, rng: np.random.Generator) -> LinkNetwork:
    """Links 0.5–10 km long at random places and bearings inside the domain; two sublinks
    each on one frequency band, polarization drawn per link."""
    length = rng.uniform(0.5, 10.0, links)
    bearing = rng.uniform(0, np.pi, links)
    margin = length.max() / 2 + 0.5
    cx, cy = rng.uniform(margin, domain_km - margin, (2, links))
    dx, dy = np.cos(bearing) * length / 2, np.sin(bearing) * length / 2
    band = rng.choice(BANDS_GHZ, links)
    frequency = np.stack([band, band + 0.5], axis=1)  # the two directions sit close
    polarization = np.repeat(rng.choice(["h", "v"], links)[:, None], 2, axis=1)
    return LinkNetwork(cx - dx, cy - dy, cx + dx, cy + dy, frequency, polarization)


def network_from_dataset(dataset: Any, margin_km: float) -> tuple[LinkNetwork, float]:
    """The links of an OpenSense dataset as a LinkNetwork whose frame starts `margin_km`
    south-west of them, and the side (km) of the square domain that holds them all."""
    lat = np.concatenate([dataset["site_0_lat"].values, dataset["site_1_lat"].values])
    lon = np.concatenate([dataset["site_0_lon"].values, dataset["site_1_lon"].values])
    lat0 = float(lat.min()) - margin_km / KM_PER_DEGREE
    per_lon = KM_PER_DEGREE * np.cos(np.radians(lat0))
    lon0 = float(lon.min()) - margin_km / per_lon

    def frame(name: str) -> tuple[np.ndarray, np.ndarray]:
        x = (dataset[f"{name}_lon"].values - lon0) * per_lon
        return x, (dataset[f"{name}_lat"].values - lat0) * KM_PER_DEGREE

    (x0, y0), (x1, y1) = frame("site_0"), frame("site_1")
    side = max(np.max([x0, x1]), np.max([y0, y1])) + margin_km
    frequency = dataset["frequency"].transpose("cml_id", "sublink_id").values
    polarization = dataset["polarization"].transpose("cml_id", "sublink_id").values
    return LinkNetwork(x0, y0, x1, y1, frequency, polarization, (lat0, lon0)), float(side)


def path_rain(
    fields: np.ndarray,
    cell_km: float,
    network: LinkNetwork,
    samples: int = 40,
    device: str | None = None,
) -> np.ndarray:
    """Rain rate (mm/h) at `samples` segment midpoints along each path, by bilinear
    interpolation of the field: shape (steps, links, samples). With a torch `device` the
    interpolation runs there (the same arithmetic)."""
    fraction = (np.arange(samples) + 0.5) / samples
    x = network.x0[:, None] + fraction * (network.x1 - network.x0)[:, None]
    y = network.y0[:, None] + fraction * (network.y1 - network.y0)[:, None]
    if device is None:
        return bilinear(fields, x / cell_km - 0.5, y / cell_km - 0.5)
    import torch

    on_device = torch.as_tensor(fields, device=device)
    return bilinear(on_device, x / cell_km - 0.5, y / cell_km - 0.5).cpu().numpy()


def attenuation_along(
    rain: np.ndarray,
    network: LinkNetwork,
    k_scale: np.ndarray | None = None,
    alpha_shift: np.ndarray | None = None,
) -> np.ndarray:
    """Rain attenuation A (dB), shape (steps, links, sublinks): ∫ k R(x)^α dx along each
    path by the midpoint rule over the samples of `path_rain`. `k_scale` and `alpha_shift`
    (links,): each link's own power law, k·k_scale and α + alpha_shift about ITU-R P.838's
    (default: ITU's exactly)."""
    links = len(network.x0)
    scale = np.ones(links) if k_scale is None else np.asarray(k_scale, float)
    shift = np.zeros(links) if alpha_shift is None else np.asarray(alpha_shift, float)
    out = np.empty((rain.shape[0], *network.frequency.shape))
    for sub in range(network.frequency.shape[1]):
        for pol in ("h", "v"):
            rows = network.polarization[:, sub] == pol
            if not rows.any():
                continue
            k, alpha = k_alpha(network.frequency[rows, sub], pol)
            k, alpha = k * scale[rows], alpha + shift[rows]
            gamma = k[None, :, None] * rain[:, rows] ** alpha[None, :, None]  # dB/km
            out[:, rows, sub] = gamma.mean(axis=-1) * network.length[rows]
    return out


def wet_antenna_pastorek(
    rain_mm_h: Any, a_max_db: float = 14.0, zeta: float = 0.55, d: float = 0.1
) -> Any:
    """Wet-antenna attenuation (dB) of a link under path-averaged rain R (mm/h), Pastorek et
    al. 2021: A_max (1 − exp(−d R^ζ)); numpy or torch (differentiable)."""
    xp = np if isinstance(rain_mm_h, np.ndarray | float) else __import__("torch")
    return a_max_db * (1 - xp.exp(-d * (rain_mm_h + 1e-12) ** zeta))


def bilinear(fields: Any, col: np.ndarray, row: np.ndarray) -> Any:
    """fields (steps, rows, cols; numpy or torch) at fractional (row, col) positions given
    as numpy arrays; edges clamp. A torch field is interpolated on its own device."""
    rows, cols = fields.shape[1:]
    col = np.clip(col, 0, cols - 1.000001)
    row = np.clip(row, 0, rows - 1.000001)
    c0, r0 = np.floor(col).astype(int), np.floor(row).astype(int)
    fc, fr = col - c0, row - r0
    if not isinstance(fields, np.ndarray):  # a torch tensor: gather and weigh on its device
        import torch

        c0, r0, fc, fr = (torch.as_tensor(a, device=fields.device) for a in (c0, r0, fc, fr))
    top = fields[:, r0, c0] * (1 - fc) + fields[:, r0, c0 + 1] * fc
    bottom = fields[:, r0 + 1, c0] * (1 - fc) + fields[:, r0 + 1, c0 + 1] * fc
    return top * (1 - fr) + bottom * fr
