"""The shipped rain prior: weights of `RainUNet` trained on radar (`training`), loaded as
a denoiser on any torch device and precision."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import torch

from .network import RainUNet

SHIPPED = "rain_unet_2km.pt"
"""The weights in the package (`weights/`), trained by `training.main` on 2 km radar."""


@dataclass
class RainPriorModel:
    """The network and what it was trained on (settings, data split, losses)."""

    network: RainUNet
    metadata: dict[str, Any]

    @property
    def cell_km(self) -> float:
        """The cell size the network was trained on (km)."""
        return float(self.metadata["cell_km"])

    def noise(self, x_t: Any, t: Any) -> Any:
        """ε̂(x_t, t) for x_t (batch, ny, nx) and times t (batch,)."""
        return self.network(x_t, t)


def save_prior(path: str | Path, network: RainUNet, metadata: dict[str, Any]) -> None:
    """Write the network's weights (float32) and metadata as one torch file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", torch.float32) for k, v in network.state_dict().items()}
    payload = {"width": network.width, "state": state, "metadata": json.dumps(metadata)}
    temporary = path.with_name(path.name + ".part")
    torch.save(payload, temporary)
    temporary.replace(path)


def load_prior(
    path: str | Path | None = None, device: str = "cpu", dtype: Any = torch.float32
) -> RainPriorModel:
    """The prior in `path` (default: the shipped weights) on `device` in `dtype`."""
    source = Path(str(files(__package__) / "weights" / SHIPPED)) if path is None else Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no rain-prior weights there")
    payload = torch.load(source, map_location="cpu", weights_only=True)
    network = RainUNet(int(payload["width"]))
    network.load_state_dict(payload["state"])
    network = network.to(device=device, dtype=dtype).eval().requires_grad_(False)
    return RainPriorModel(network, json.loads(payload["metadata"]))
