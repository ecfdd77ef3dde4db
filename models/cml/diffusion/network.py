"""The denoiser: a small U-Net that predicts the noise ε in x_t = √ᾱ·x₀ + √(1 − ᾱ)·ε.

Three resolutions (full, ½, ¼), two residual blocks each on the way down and up, group
normalisation, SiLU, the time t ∈ [0, 1] embedded sinusoidally and added in every block.
Fully convolutional: it runs on any grid; inputs are padded by reflection to a multiple of
4 cells and cropped back.
"""

from __future__ import annotations

import math
from typing import Any, cast

import torch
from torch import nn
from torch.nn import functional


class _Block(nn.Module):
    """Residual block: norm, SiLU, 3 × 3 conv, plus the time embedding, twice."""

    def __init__(self, inputs: int, outputs: int, embedding: int) -> None:
        super().__init__()
        self.norm1 = nn.GroupNorm(min(8, inputs), inputs)
        self.conv1 = nn.Conv2d(inputs, outputs, 3, padding=1)
        self.time = nn.Linear(embedding, outputs)
        self.norm2 = nn.GroupNorm(8, outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, padding=1)
        self.skip = nn.Conv2d(inputs, outputs, 1) if inputs != outputs else nn.Identity()

    def forward(self, x: Any, embedded: Any) -> Any:
        h = self.conv1(functional.silu(self.norm1(x)))
        h = h + self.time(embedded)[:, :, None, None]
        h = self.conv2(functional.silu(self.norm2(h)))
        return h + self.skip(x)


class RainUNet(nn.Module):
    """ε̂(x_t, t): x_t (batch, ny, nx), t (batch,) -> (batch, ny, nx).

    width: channels at full resolution; the coarser two have 2·width.

    >>> net = RainUNet(width=8)
    >>> net(torch.zeros(2, 10, 13), torch.full((2,), 0.5)).shape
    torch.Size([2, 10, 13])
    """

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.width = width
        channels = (width, 2 * width, 2 * width)
        embedding = 4 * width
        self.embed = nn.Sequential(
            nn.Linear(width, embedding), nn.SiLU(), nn.Linear(embedding, embedding)
        )
        self.inlet = nn.Conv2d(1, width, 3, padding=1)
        self.down = nn.ModuleList()
        previous = width
        for c in channels:
            self.down.append(
                nn.ModuleList([_Block(previous, c, embedding), _Block(c, c, embedding)])
            )
            previous = c
        self.middle = _Block(previous, previous, embedding)
        self.up = nn.ModuleList()
        for c in reversed(channels):
            self.up.append(
                nn.ModuleList([_Block(previous + c, c, embedding), _Block(c, c, embedding)])
            )
            previous = c
        self.outlet = nn.Sequential(
            nn.GroupNorm(8, width), nn.SiLU(), nn.Conv2d(width, 1, 3, padding=1)
        )

    def _time(self, t: Any) -> Any:
        half = self.width // 2
        frequency = torch.exp(-math.log(1000.0) * torch.arange(half, device=t.device) / half)
        angle = 1000.0 * t[:, None].to(frequency.dtype) * frequency[None]
        return self.embed(torch.cat([angle.sin(), angle.cos()], 1).to(self.inlet.weight.dtype))

    def forward(self, x: Any, t: Any) -> Any:
        ny, nx = x.shape[-2:]
        pad_y, pad_x = -ny % 4, -nx % 4
        h = x[:, None]
        if pad_y or pad_x:
            h = functional.pad(h, (0, pad_x, 0, pad_y), mode="replicate")
        embedded = self._time(t)
        h = self.inlet(h)
        skips = []
        for level, pair in enumerate(self.down):
            first, second = cast(nn.ModuleList, pair)
            h = second(first(h, embedded), embedded)
            skips.append(h)
            if level < len(self.down) - 1:
                h = functional.avg_pool2d(h, 2)
        h = self.middle(h, embedded)
        for level, pair in enumerate(self.up):
            first, second = cast(nn.ModuleList, pair)
            if level > 0:
                h = functional.interpolate(h, scale_factor=2.0, mode="nearest")
            h = second(first(torch.cat([h, skips.pop()], 1), embedded), embedded)
        return self.outlet(h)[:, 0, :ny, :nx]
