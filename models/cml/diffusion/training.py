"""Training the rain prior on radar: the data split, crops and the training loop.

Data: the RADOLAN YW fields shipped in pycomlink's wheel (5-minute sums on 1 km cells,
2018-05-10 to 05-20, 190 × 228 km), as rain rates averaged over 2 × 2 cells (the 2 km
grid `cml-reconstruct` maps real links on). Whole days are split before any tuning:

- training: 05-10, 05-11, 05-12, 05-15, 05-16, 05-17, 05-18, 05-19;
- validation (the samplers' settings are chosen on it): 05-20;
- held out (evaluation only, never seen in training or tuning): 05-13, 05-14.

Samples are 32 × 32-cell crops (64 km) without missing radar pixels, rotated by a
multiple of 90° and mirrored at random; crops with at least 2 % of cells above 0.1 mm/h
make up `wet_share` of each batch (most of the data is dry). Loss: the mean squared
error of the predicted noise at times drawn uniformly in [0, 1]; the shipped weights are
an exponential moving average of the trained ones.

Retrain the shipped weights (40 minutes on two CPU cores; 106 s on an H200)::

    python -m substrates.models.cml.diffusion.training --out weights/rain_unet_2km.pt
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .network import RainUNet
from .schedule import noised
from .transform import to_model

TRAINING_DAYS = (
    "2018-05-10",
    "2018-05-11",
    "2018-05-12",
    "2018-05-15",
    "2018-05-16",
    "2018-05-17",
    "2018-05-18",
    "2018-05-19",
)
VALIDATION_DAYS = ("2018-05-20",)
HELD_OUT_DAYS = ("2018-05-13", "2018-05-14")
WET_MM_H = 0.1
"""A cell is wet above this rain rate."""


@dataclass(frozen=True)
class TrainingSettings:
    """width: the U-Net's channels at full resolution; crop: cells per side; batch: crops
    per step; steps: optimiser steps; learning_rate: AdamW's peak (cosine decay after a
    warm-up of 5 % of the steps); ema: decay of the weights' moving average; wet_share:
    share of each batch drawn from wet crops; block: radar cells averaged per side (2: 1
    km radar to 2 km cells); frames: radar frames averaged into each field (3: 15-minute
    means of 5-minute radar, a prior for 15-minute maps); seed: of crops, noise and
    initial weights."""

    width: int = 16
    crop: int = 32
    batch: int = 48
    steps: int = 4000
    learning_rate: float = 2e-3
    ema: float = 0.999
    wet_share: float = 0.85
    block: int = 2
    frames: int = 1
    seed: int = 0


def radar_fields(
    path: str | Path, days: Sequence[str], block: int = 2, frames: int = 1
) -> np.ndarray:
    """Rain rates (fields, ny, nx) in mm/h of the radar file's frames on `days` (ISO
    dates), averaged over block × block cells (NaN where any cell is missing) and over
    `frames` consecutive frames of the same day (a moving mean: 3 gives the 15-minute
    means of 5-minute radar, one ending at every frame from the third of each day on)."""
    from ....datasets.cml.radar_reference import areal_reference

    rain = areal_reference(path, days)["rain"]
    parts = []
    for day in days:
        frame = rain.sel(time=day).values.astype(np.float32)
        t, ny, nx = frame.shape
        ny, nx = ny // block * block, nx // block * block
        frame = frame[:, :ny, :nx].reshape(t, ny // block, block, nx // block, block)
        frame = frame.mean(axis=(2, 4))
        if frames > 1:
            frame = sum(frame[i : t - frames + 1 + i] for i in range(frames)) / frames
        parts.append(frame)
    return np.concatenate(parts)


class CropSampler:
    """Random crops of `size` cells without NaN from `fields` (frames, ny, nx) in mm/h,
    on a lattice of stride 4, drawn wet (≥ 2 % of cells above WET_MM_H) with probability
    wet_share, else from all crops; each rotated and mirrored at random."""

    def __init__(self, fields: np.ndarray, size: int, wet_share: float, seed: int) -> None:
        if fields.shape[1] < size or fields.shape[2] < size:
            raise ValueError(f"fields of {fields.shape[1:]} cells are smaller than a {size} crop")
        self.fields, self.size, self.wet_share = fields, size, wet_share
        self.rng = np.random.default_rng(seed)
        rows = np.arange(0, fields.shape[1] - size + 1, 4)
        cols = np.arange(0, fields.shape[2] - size + 1, 4)
        corners, wet = [], []
        missing, rainy = np.isnan(fields), fields > WET_MM_H
        for r in rows:
            for c in cols:
                window = (slice(None), slice(r, r + size), slice(c, c + size))
                valid = ~missing[window].any(axis=(1, 2))
                share = rainy[window].mean(axis=(1, 2))
                frame = np.flatnonzero(valid)
                corners.append(np.stack([frame, np.full_like(frame, r), np.full_like(frame, c)], 1))
                wet.append(share[valid] >= 0.02)
        self.corners = np.concatenate(corners)
        self.wet = np.flatnonzero(np.concatenate(wet))
        if len(self.corners) == 0:
            raise ValueError("no crop without missing cells")

    def __call__(self, batch: int) -> np.ndarray:
        """(batch, size, size) rain rates in mm/h."""
        wet = self.rng.random(batch) < self.wet_share if len(self.wet) else np.zeros(batch, bool)
        picks = np.where(
            wet,
            self.wet[self.rng.integers(len(self.wet), size=batch)] if len(self.wet) else 0,
            self.rng.integers(len(self.corners), size=batch),
        )
        out = np.empty((batch, self.size, self.size), np.float32)
        for i, (frame, r, c) in enumerate(self.corners[picks]):
            crop = self.fields[frame, r : r + self.size, c : c + self.size]
            crop = np.rot90(crop, int(self.rng.integers(4)))
            out[i] = crop[:, ::-1] if self.rng.random() < 0.5 else crop
        return out


def denoising_loss(net: Any, x0: Any, generator: Any) -> Any:
    """Mean squared error of the predicted noise at uniform random times, drawn by
    `generator` on its own device (the same draws for a network on any device)."""
    t = torch.rand(len(x0), generator=generator, device=generator.device).to(x0.device)
    noise = torch.randn(x0.shape, generator=generator, device=generator.device).to(x0.device)
    return (net(noised(x0, t, noise), t) - noise).pow(2).mean()


def train(
    sampler: CropSampler,
    settings: TrainingSettings,
    device: str = "cpu",
    on_step: Callable[[int, float], None] | None = None,
) -> tuple[RainUNet, list[float]]:
    """The moving average of the trained network and the loss of every step."""
    torch.manual_seed(settings.seed)
    generator = torch.Generator(device=device).manual_seed(settings.seed)
    net = RainUNet(settings.width).to(device)
    average = copy.deepcopy(net).requires_grad_(False)
    optimiser = torch.optim.AdamW(net.parameters(), lr=settings.learning_rate, weight_decay=0.0)
    warmup = max(1, settings.steps // 20)

    def rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + np.cos(np.pi * (step - warmup) / max(1, settings.steps - warmup)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, rate)
    losses = []
    for step in range(settings.steps):
        x0 = to_model(torch.as_tensor(sampler(settings.batch), device=device))
        loss = denoising_loss(net, x0, generator)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        with torch.no_grad():
            decay = min(settings.ema, (1 + step) / (10 + step))
            for kept, new in zip(average.parameters(), net.parameters(), strict=True):
                kept.lerp_(new, 1 - decay)
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step(step, losses[-1])
    return average.eval(), losses


def held_loss(net: Any, sampler: CropSampler, batches: int = 20, seed: int = 1) -> float:
    """The denoising loss on `batches` of 48 crops of other data (fixed seed)."""
    generator = torch.Generator().manual_seed(seed)
    device = next(net.parameters()).device
    with torch.no_grad():
        values = [
            float(
                denoising_loss(
                    net, to_model(torch.as_tensor(sampler(48), device=device)), generator
                )
            )
            for _ in range(batches)
        ]
    return float(np.mean(values))


def main(argv: Sequence[str] | None = None) -> None:
    """Train the rain prior and write its weights with their metadata."""
    from ....datasets.cml.radar_reference import pycomlink_references
    from .prior import save_prior

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = TrainingSettings()
    parser.add_argument("--out", required=True, help="weights file to write (.pt)")
    parser.add_argument("--radar", help="RADOLAN file (default: pycomlink's example)")
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--batch", type=int, default=defaults.batch)
    parser.add_argument("--width", type=int, default=defaults.width)
    parser.add_argument("--device", default="cpu", help="torch device: cpu or cuda")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=defaults.learning_rate,
        help="AdamW's peak learning rate",
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=defaults.frames,
        help="5-minute radar frames averaged into each training field (3: 15-minute means)",
    )
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error(f"--frames must be at least 1, got {args.frames}")
    settings = TrainingSettings(
        width=args.width,
        batch=args.batch,
        steps=args.steps,
        learning_rate=args.learning_rate,
        frames=args.frames,
        seed=args.seed,
    )
    radar = args.radar or pycomlink_references()[0]
    began = time.perf_counter()
    fields = radar_fields(radar, TRAINING_DAYS, settings.block, settings.frames)
    sampler = CropSampler(fields, settings.crop, settings.wet_share, settings.seed)
    validation = CropSampler(
        radar_fields(radar, VALIDATION_DAYS, settings.block, settings.frames),
        settings.crop,
        settings.wet_share,
        settings.seed + 1,
    )

    def report(step: int, loss: float) -> None:
        if step % 100 == 0 or step == settings.steps - 1:
            print(
                f"step {step:5d}  loss {loss:.4f}  {time.perf_counter() - began:6.0f} s", flush=True
            )

    net, losses = train(sampler, settings, args.device, report)
    metadata = {
        "settings": asdict(settings),
        "split": {
            "training": TRAINING_DAYS,
            "validation": VALIDATION_DAYS,
            "held_out": HELD_OUT_DAYS,
        },
        "radar": Path(radar).name,
        "cell_km": settings.block * 1.0,
        "minutes": 5 * settings.frames,
        "final_training_loss_mean_last_100": float(np.mean(losses[-100:])),
        "validation_loss": held_loss(net, validation),
        "seconds": round(time.perf_counter() - began, 1),
        "device": args.device,
        "torch": torch.__version__,
    }
    save_prior(args.out, net, metadata)
    print(json.dumps(metadata, indent=1))


if __name__ == "__main__":
    main()
