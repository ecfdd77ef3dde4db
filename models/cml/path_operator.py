"""The forward operator of the Bayesian reconstruction, in torch: a rain field on a grid ->
each sublink's attenuation, the ITU-R P.838-3 power law integrated along its path."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch

from ...datasets.cml.itu_p838 import k_alpha_by_polarization
from ...datasets.cml.network import wet_antenna_pastorek
from .grid import Grid, link_ends_km


class PathOperator:
    """Rain fields (batch, ny, nx) in mm/h -> attenuation (batch, links, sublinks) in dB.

    Each path is cut into equal segments (`samples` per path, or by default
    `samples_per_cell` per cell length, at least 2); the rain at a segment's midpoint is the
    bilinear interpolation of the cell centres (edges clamp), and A = Σ k R^α Δl over the
    segments: the simulator's forward model, differentiable and batched. The interpolation
    is one sparse matrix (segments × cells), applied and transposed in CSR form.
    """

    def __init__(
        self,
        ends_km: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        frequency_ghz: np.ndarray,
        polarization: np.ndarray,
        grid: Grid,
        samples: int | None = None,
        samples_per_cell: float = 2.0,
        dtype: Any = None,
        device: str = "cpu",
    ) -> None:
        dtype = dtype or torch.float64
        x0, y0, x1, y1 = (np.asarray(a, dtype=float) for a in ends_km)
        length = np.hypot(x1 - x0, y1 - y0)
        if samples is None:
            counts = np.maximum(2, np.ceil(length / grid.cell_km * samples_per_cell)).astype(int)
        else:
            counts = np.full(len(x0), samples)
        link = np.repeat(np.arange(len(x0)), counts)
        position = np.arange(len(link)) - np.repeat(np.cumsum(counts) - counts, counts)
        fraction = (position + 0.5) / counts[link]
        col = (x0[link] + fraction * (x1 - x0)[link] - grid.x0_km) / grid.cell_km - 0.5
        row = (y0[link] + fraction * (y1 - y0)[link] - grid.y0_km) / grid.cell_km - 0.5
        col = np.clip(col, 0, grid.nx - 1.000001)
        row = np.clip(row, 0, grid.ny - 1.000001)
        c0, r0 = np.floor(col).astype(np.int64), np.floor(row).astype(np.int64)
        fc, fr = col - c0, row - r0
        cells = np.stack(
            [
                r0 * grid.nx + c0,
                r0 * grid.nx + c0 + 1,
                (r0 + 1) * grid.nx + c0,
                (r0 + 1) * grid.nx + c0 + 1,
            ],
            1,
        )
        weights = np.stack([(1 - fr) * (1 - fc), (1 - fr) * fc, fr * (1 - fc), fr * fc], 1)
        k, alpha = k_alpha_by_polarization(frequency_ghz, polarization)

        def put(a: np.ndarray) -> Any:
            return torch.as_tensor(a, dtype=dtype, device=device)

        segments = torch.sparse_coo_tensor(
            torch.as_tensor(np.stack([np.repeat(np.arange(len(link)), 4), cells.ravel()])),
            torch.as_tensor(weights.ravel(), dtype=dtype),
            (len(link), grid.ny * grid.nx),
            check_invariants=True,
        ).coalesce()  # built on the CPU, moved as CSR
        with warnings.catch_warnings():  # "sparse CSR support is in beta": we use only @
            warnings.simplefilter("ignore", UserWarning)
            self.interpolation = segments.to_sparse_csr().to(device)
            self.transposed = segments.t().coalesce().to_sparse_csr().to(device)
        self.links = len(x0)
        self.link = torch.as_tensor(link, device=device)
        self.share = put(1.0 / counts[link])  # of its path, per segment
        self.segment_km = put(length[link] / counts[link])[:, None]
        self.k, self.alpha = put(k[link]), put(alpha[link])  # (segments, sublinks)
        self.dtype, self.device = dtype, torch.device(device)

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

    def segment_rain(self, rain: Any) -> Any:
        """Rain (mm/h) at every segment midpoint: (batch, segments)."""
        return _Interpolate.apply(rain.reshape(rain.shape[0], -1), self)

    def path_average(self, rain: Any) -> Any:
        """Path-averaged rain (mm/h): (batch, links)."""
        along = self.segment_rain(rain) * self.share
        return along.new_zeros(rain.shape[0], self.links).index_add_(1, self.link, along)

    def attenuation(self, rain: Any, wet_antenna_max_db: float = 0.0) -> Any:
        """Rain attenuation (dB) per sublink, plus Pastorek wet-antenna attenuation of the
        path-averaged rain with A_max = `wet_antenna_max_db` (0: none; ζ 0.55, d 0.1):
        (batch, links, sublinks)."""
        along = self.segment_rain(rain).clamp_min(0)[..., None]
        gamma = self.k * (along + 1e-12) ** self.alpha * self.segment_km  # dB per segment
        total = gamma.new_zeros(rain.shape[0], self.links, self.k.shape[1])
        total = total.index_add_(1, self.link, gamma)
        if wet_antenna_max_db > 0:
            averaged = self.path_average(rain.clamp_min(0))
            total = total + wet_antenna_pastorek(averaged, wet_antenna_max_db)[..., None]
        return total


class _Interpolate(torch.autograd.Function):
    """flat (batch, cells) -> (batch, segments) by the operator's sparse matrix; the
    gradient goes back through its stored transpose (a CSR product both ways)."""

    @staticmethod
    def forward(ctx: Any, flat: Any, operator: PathOperator) -> Any:
        ctx.operator = operator
        return (operator.interpolation @ flat.T).T

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return (ctx.operator.transposed @ grad.T.contiguous()).T, None
