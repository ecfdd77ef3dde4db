"""Two-layer scenes and the layer method: two motions recovered from point clouds whose
events are built exactly and from simulated scenes against their ground truth; scene labels;
reflection removal against the true layers."""

from __future__ import annotations

import numpy as np

from substrates.backends.registry import create_backend
from substrates.datasets.events.events import EVENT_DTYPE
from substrates.models.events.cmax import two_motions
from substrates.models.events.removal import psnr, remove_reflection
from substrates.models.events.scenes import ReflectionScene


def two_clouds(seed: int, va, vb, n=(1500, 900), duration_s=0.2, size=(128, 96)):
    """Events of two sets of points translating at va and vb (px/s), each point firing at
    random times along its straight path: the motions and labels are exact."""
    rng = np.random.default_rng(seed)
    chunks, labels = [], []
    for k, (velocity, count) in enumerate(zip((va, vb), n, strict=True)):
        points = rng.uniform([10, 10], [size[0] - 10, size[1] - 10], (count // 15, 2))
        for x0, y0 in points:
            t = np.sort(rng.uniform(0, duration_s, 15))
            x = np.clip(np.round(x0 + velocity[0] * (t - duration_s / 2)), 0, size[0] - 1)
            y = np.clip(np.round(y0 + velocity[1] * (t - duration_s / 2)), 0, size[1] - 1)
            chunks.append(np.stack([t * 1e6, x, y, rng.integers(0, 2, 15)], axis=1))
            labels.append(np.full(15, k))
    rows, labels = np.concatenate(chunks), np.concatenate(labels)
    order = np.argsort(rows[:, 0], kind="stable")
    events = np.empty(len(rows), EVENT_DTYPE)
    events["t"], events["x"], events["y"], events["p"] = rows[order].T
    return events, labels[order]


def test_two_motions_are_recovered_from_exactly_built_events() -> None:
    for seed, va, vb in ((1, (120, -40), (-60, 150)), (2, (-200, 10), (30, 90))):
        events, labels = two_clouds(seed, va, vb)
        found = two_motions(events, 128, 96)
        truth = np.array([va, vb], float)
        order = [0, 1] if np.hypot(*(found.velocities - truth).T).sum() < np.hypot(
            *(found.velocities[::-1] - truth).T).sum() else [1, 0]  # fmt: skip
        assert np.hypot(*(found.velocities[order] - truth).T).max() < 10
        layer = found.layer if order == [0, 1] else 1 - found.layer
        assert np.mean(layer == labels) > 0.9


def test_two_motions_of_simulated_blended_scenes_match_their_truth() -> None:
    """Development scenes 24 and 32: layers making 42% and 46% of the events, whose
    motions a coarse search on a short central slice of the events used to miss."""
    simulator = create_backend("events.sim", {"preset": "clean", "seed": 0})
    for seed in (24, 32):
        scene = ReflectionScene.random(seed)
        rendered = scene.render()
        events = simulator.simulate(rendered.frames, rendered.times).array
        found = two_motions(events, scene.width, scene.height)
        truth = np.array([scene.transmission_velocity, scene.reflection_velocity])
        errors = np.hypot(*(found.velocities - truth).T), np.hypot(
            *(found.velocities[::-1] - truth).T)  # fmt: skip
        assert min(e.max() for e in errors) < 20


def test_a_still_reflection_causes_no_events() -> None:
    scene = ReflectionScene(64, 48, 0.05, (150.0, 30.0), (0.0, 0.0), 1, 2)
    rendered = scene.render()
    assert not rendered.labels.any()  # only the transmission changes anything
    moving = ReflectionScene(64, 48, 0.05, (0.0, 0.0), (150.0, 30.0), 1, 2).render()
    changed = np.abs(np.diff(np.log(moving.frames), axis=0)) > 1e-9
    assert np.all(moving.labels[changed] == 1)


def test_reflection_removal_with_the_true_motion_beats_the_input() -> None:
    for seed in (101, 102):
        scene = ReflectionScene.random(seed)
        rendered = scene.render()
        recovered = remove_reflection(rendered.frames, rendered.times,
                                      np.array(scene.transmission_velocity))  # fmt: skip
        margin = int(np.ceil(np.hypot(*scene.transmission_velocity) * scene.duration_s)) + 1
        target = rendered.transmission[0]
        assert psnr(recovered, target, margin) > psnr(rendered.frames[0], target, margin) + 5


def test_a_homography_layer_moves_as_its_warp_says() -> None:
    """A pure zoom about the centre: the pixel at offset d from the centre shows, at time t,
    what the centre-relative texture had at d / (1 + zoom·t); the centre stays put."""
    from substrates.datasets.events.synthetic import Texture

    zoom = 0.5
    scene = ReflectionScene(65, 49, 0.1, (0.0, 0.0), (0.0, 0.0), 1, 2,
                            transmission_warp=(zoom, 0, 0, 0, zoom, 0, 0, 0, 0))  # fmt: skip
    x, y = scene.source((0.0, 0.0), scene.transmission_warp, 0.1)
    cx, cy = 32.0, 24.0
    grid_y, grid_x = np.mgrid[0:49, 0:65]
    assert np.allclose(x - cx, (grid_x - cx) / (1 + zoom * 0.1))
    assert np.allclose(y - cy, (grid_y - cy) / (1 + zoom * 0.1))
    transmission, _ = scene.layers(0.1)
    expected = scene.transmission_dn * (1 + 0.7 * Texture.random(1).at(x, y))
    assert np.allclose(transmission, expected)
    rendered = ReflectionScene.random(5, homography=True).render()
    steps = np.diff(rendered.times)
    assert rendered.frames.shape[0] >= 2 and np.all(steps > 0)
