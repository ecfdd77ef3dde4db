"""The rain prior's training: the radar data split, crops, the loop on a tiny
configuration, the weights' round trip, and the shipped weights on held-out days."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.cml.radar_reference import pycomlink_references
from substrates.models.cml.diffusion.training import (
    HELD_OUT_DAYS,
    TRAINING_DAYS,
    VALIDATION_DAYS,
    CropSampler,
    TrainingSettings,
    held_loss,
    radar_fields,
    train,
)

torch = pytest.importorskip("torch")
pytest.importorskip("pycomlink")


@pytest.fixture(scope="module")
def held_out_fields() -> np.ndarray:
    return radar_fields(pycomlink_references()[0], HELD_OUT_DAYS[:1])


def test_the_split_keeps_whole_days_apart() -> None:
    days = [set(TRAINING_DAYS), set(VALIDATION_DAYS), set(HELD_OUT_DAYS)]
    assert all(not a & b for i, a in enumerate(days) for b in days[i + 1 :])
    assert {"2018-05-13", "2018-05-14"} == set(HELD_OUT_DAYS)


def test_radar_fields_are_block_means_of_the_days_asked(held_out_fields) -> None:
    from substrates.datasets.cml.radar_reference import areal_reference

    one_km = areal_reference(pycomlink_references()[0], HELD_OUT_DAYS[:1])["rain"].values
    assert held_out_fields.shape == (288, 95, 114)
    block = one_km[100, 10:12, 20:22]
    assert held_out_fields[100, 5, 10] == pytest.approx(block.mean(), nan_ok=True, rel=1e-5)


def test_fields_of_several_frames_are_moving_means_within_each_day(held_out_fields) -> None:
    two_days = radar_fields(pycomlink_references()[0], HELD_OUT_DAYS, frames=3)
    assert two_days.shape == (2 * 286, 95, 114)  # no mean spans midnight
    np.testing.assert_allclose(two_days[5], held_out_fields[5:8].mean(axis=0), rtol=1e-6)
    first_of_next = radar_fields(pycomlink_references()[0], HELD_OUT_DAYS[1:])[:3].mean(axis=0)
    np.testing.assert_allclose(two_days[286], first_of_next, rtol=1e-6)


def test_crops_have_no_missing_cells_and_the_asked_share_is_wet(held_out_fields) -> None:
    sampler = CropSampler(held_out_fields, 32, wet_share=0.85, seed=0)
    crops = sampler(400)
    assert crops.shape == (400, 32, 32) and np.isfinite(crops).all()
    wet = (crops > 0.1).mean(axis=(1, 2)) >= 0.02
    assert 0.8 <= wet.mean() <= 0.95


def test_a_tiny_training_run_lowers_the_loss(held_out_fields) -> None:
    settings = TrainingSettings(width=8, crop=16, batch=8, steps=60, learning_rate=3e-3)
    sampler = CropSampler(held_out_fields, settings.crop, settings.wet_share, seed=0)
    net, losses = train(sampler, settings)
    assert len(losses) == 60 and np.isfinite(losses).all()
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:5])
    assert not any(p.requires_grad for p in net.parameters())


def test_weights_round_trip(tmp_path, held_out_fields) -> None:
    from substrates.models.cml.diffusion.network import RainUNet
    from substrates.models.cml.diffusion.prior import load_prior, save_prior

    net = RainUNet(8)
    save_prior(tmp_path / "w.pt", net, {"cell_km": 2.0})
    loaded = load_prior(tmp_path / "w.pt", dtype=torch.float64)
    x, t = torch.randn(2, 12, 12, dtype=torch.float64), torch.full((2,), 0.3)
    assert torch.allclose(loaded.noise(x, t), net.double()(x, t))
    assert loaded.cell_km == 2.0 and not (tmp_path / "w.pt.part").exists()


def test_the_shipped_prior_denoises_held_out_radar(held_out_fields) -> None:
    """On a day it never saw, the shipped network's noise error is far below that of an
    untrained one (about 1) and close to its own validation loss."""
    from substrates.models.cml.diffusion.network import RainUNet
    from substrates.models.cml.diffusion.prior import load_prior

    prior = load_prior()
    assert set(prior.metadata["split"]["training"]).isdisjoint(HELD_OUT_DAYS)
    sampler = CropSampler(held_out_fields, 32, 0.85, seed=5)
    shipped = held_loss(prior.network, sampler, batches=4)
    untrained = held_loss(RainUNet(prior.network.width).eval(), sampler, batches=4)
    assert shipped < 0.15 * untrained
    assert shipped < 2 * prior.metadata["validation_loss"]
