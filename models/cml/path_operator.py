"""The forward operator of the Bayesian reconstruction, in torch: a rain field on a grid ->
each sublink's attenuation, the ITU-R P.838-3 power law integrated along its path."""

from __future__ import annotations

from typing import Any

import numpy as np

from substrates.datasets.cml.itu_p838 import k_alpha
from substrates.datasets.cml.network import wet_antenna_pastorek

from .grid import Grid, link_ends_km


class PathOperator:
    """Rain fields (batch, ny, nx) in mm/h -> attenuation (batch, links, sublinks) in dB.

    Each path is cut into `samples` equal segments; the rain at a segment's midpoint is the
    bilinear interpolation of the cell centres (edges clamp), and A = L·mean(k R^α): the
    arithmetic of the simulator's forward model, differentiable and batched.
    """

    def __init__(
        self,
        ends_km: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        frequency_ghz: np.ndarray,
        polarization: np.ndarray,
        grid: Grid,
        samples: int = 40,
        dtype: Any = None,
        device: str = "cpu",
    ) -> None:
        import torch

        dtype = dtype or torch.float64
        x0, y0, x1, y1 = (np.asarray(a, dtype=float) for a in ends_km)
        fraction = (np.arange(samples) + 0.5) / samples
        col = (x0[:, None] + fraction * (x1 - x0)[:, None] - grid.x0_km) / grid.cell_km - 0.5
        row = (y0[:, None] + fraction * (y1 - y0)[:, None] - grid.y0_km) / grid.cell_km - 0.5
        col = np.clip(col, 0, grid.nx - 1.000001)
        row = np.clip(row, 0, grid.ny - 1.000001)
        c0, r0 = np.floor(col).astype(np.int64), np.floor(row).astype(np.int64)
        fc, fr = col - c0, row - r0
        corners = [r0 * grid.nx + c0, r0 * grid.nx + c0 + 1]
        corners += [(r0 + 1) * grid.nx + c0, (r0 + 1) * grid.nx + c0 + 1]
        weights = [(1 - fr) * (1 - fc), (1 - fr) * fc, fr * (1 - fc), fr * fc]
        k, alpha = np.empty(frequency_ghz.shape), np.empty(frequency_ghz.shape)
        for pol in ("h", "v"):
            rows = polarization == pol
            k[rows], alpha[rows] = k_alpha(frequency_ghz[rows], pol)

        def put(a: np.ndarray) -> Any:
            return torch.as_tensor(a, dtype=dtype, device=device)

        self.shape = (len(x0), samples)
        self.index = torch.as_tensor(np.stack(corners, -1).reshape(len(x0), -1), device=device)
        self.weight = put(np.stack(weights, -1))  # (links, samples, 4)
        self.k, self.alpha = put(k)[None, :, :, None], put(alpha)[None, :, :, None]
        self.length_km = put(np.hypot(x1 - x0, y1 - y0))[None, :, None]

    @classmethod
    def from_dataset(cls, dataset: Any, grid: Grid, **kwargs: Any) -> PathOperator:
        """The operator of every sublink of an OpenSense dataset on `grid`."""
        return cls(
            link_ends_km(dataset, grid.origin),
            dataset["frequency"].transpose("cml_id", "sublink_id").values,
            dataset["polarization"].transpose("cml_id", "sublink_id").values,
            grid,
            **kwargs,
        )

    def path_rain(self, rain: Any) -> Any:
        """Rain (mm/h) at each segment midpoint: (batch, links, samples)."""
        flat = rain.reshape(rain.shape[0], -1)
        corners = flat[:, self.index].reshape(rain.shape[0], *self.shape, 4)
        return (corners * self.weight).sum(-1)

    def attenuation(self, rain: Any, wet_antenna: bool = False) -> Any:
        """Rain attenuation (dB) per sublink, plus Pastorek wet-antenna attenuation of the
        path-averaged rain when `wet_antenna`: (batch, links, sublinks)."""
        along = self.path_rain(rain).clamp_min(0)[:, :, None, :]
        total = (self.k * (along + 1e-12) ** self.alpha).mean(-1) * self.length_km
        if wet_antenna:
            total = total + wet_antenna_pastorek(along.mean(-1))
        return total
