"""Two-layer scenes and the layer method: two motions recovered from point clouds whose
events are built exactly and from simulated scenes against their ground truth; scene labels;
reflection removal against the true layers."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.backends.registry import create_backend
from substrates.datasets.events.events import EVENT_DTYPE
from substrates.models.events.cmax import flow, two_motions
from substrates.models.events.layers import evaluate_scene
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
        order = (
            [0, 1]
            if np.hypot(*(found.velocities - truth).T).sum()
            < np.hypot(*(found.velocities[::-1] - truth).T).sum()
            else [1, 0]
        )
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
        errors = (
            np.hypot(*(found.velocities - truth).T),
            np.hypot(*(found.velocities[::-1] - truth).T),
        )
        assert min(e.max() for e in errors) < 20


def affine_cloud(seed: int, velocity, gradient, n=1200, duration_s=0.2, size=(128, 96)):
    """Events of points moving exactly under the affine flow v + A·(p − c) (px/s, 1/s), c the
    image centre: d(τ) = e^{Aτ}·d₀ + A⁻¹(e^{Aτ} − I)·v from their offsets d₀ at mid-span."""
    from scipy.linalg import expm

    rng = np.random.default_rng(seed)
    centre = (np.array(size) - 1) / 2
    a, v = np.reshape(gradient, (2, 2)), np.asarray(velocity, float)
    rows = []
    for d0 in rng.uniform(-0.35, 0.35, (n // 15, 2)) * size:
        for t in np.sort(rng.uniform(0, duration_s, 15)):
            step = expm(a * (t - duration_s / 2))
            d = step @ d0 + np.linalg.solve(a, (step - np.eye(2)) @ v)
            x, y = np.clip(np.round(centre + d), 0, np.array(size) - 1)
            rows.append((t * 1e6, x, y, rng.integers(0, 2)))
    return np.array(rows)


def test_affine_motions_give_back_a_zooming_turning_layer() -> None:
    """A layer zooming at 0.5 /s and turning at 0.3 rad/s over a translating one: the affine
    model finds its gradient; the translation model cannot, and its flow is further off."""
    gradient = (0.5, -0.3, 0.3, 0.5)
    turning = affine_cloud(3, (-40.0, 90.0), gradient)
    events, _ = two_clouds(4, (150.0, -20.0), (0.0, 0.0), n=(1500, 0))
    rows = np.concatenate([turning, np.stack([events[k] for k in "txyp"], axis=1)])
    order = np.argsort(rows[:, 0], kind="stable")
    mixed = np.empty(len(rows), EVENT_DTYPE)
    mixed["t"], mixed["x"], mixed["y"], mixed["p"] = rows[order].T
    truth = np.array([[-40.0, 90.0, *gradient], [150.0, -20.0, 0, 0, 0, 0]])
    y, x = np.mgrid[0:96, 0:128].astype(float)

    def flow_errors(found):
        motions = found.motions
        if (
            np.hypot(*(motions[::-1, :2] - truth[:, :2]).T).sum()
            < np.hypot(*(motions[:, :2] - truth[:, :2]).T).sum()
        ):
            motions = motions[::-1]
        return motions, [
            np.mean(np.hypot(*np.subtract(flow(m, x, y, 128, 96), flow(t, x, y, 128, 96))))
            for m, t in zip(motions, truth, strict=True)
        ]

    motions, affine = flow_errors(two_motions(mixed, 128, 96, affine=True))
    assert np.abs(motions[0, 2:] - gradient).max() < 0.1
    assert np.hypot(*(motions[:, :2] - truth[:, :2]).T).max() < 10
    _, translation = flow_errors(two_motions(mixed, 128, 96))
    assert max(affine) < 8 < translation[0]


def test_a_scene_layer_flow_is_the_rate_its_pattern_moves_at() -> None:
    """ReflectionScene.flow and .motion against finite differences of the forward map: the
    texture point a pixel shows at t sits at c + v·t' + H(t')·d at t' (H = I + t'·G, then
    divided by its third row), and moves by that much."""
    scene = ReflectionScene.random(7, homography=True)
    centre = np.array([(scene.width - 1) / 2, (scene.height - 1) / 2])
    grid = np.stack(np.mgrid[0 : scene.height, 0 : scene.width][::-1]).astype(float)
    step = 1e-6
    for layer, (velocity, warp) in enumerate(
        (
            (scene.transmission_velocity, scene.transmission_warp),
            (scene.reflection_velocity, scene.reflection_warp),
        )
    ):
        for t in (0.0, 0.1):
            d = np.stack(scene.source(velocity, warp, t)) - centre[:, None, None]
            homography = np.eye(3) + (t + step) * np.reshape(warp, (3, 3))
            moved = np.tensordot(homography, np.stack([*d, np.ones_like(d[0])]), axes=1)
            later = (centre + np.multiply(velocity, t + step))[:, None, None] + moved[:2] / moved[2]
            numeric = (later - grid) / step
            assert np.allclose(np.stack(scene.flow(layer, t)), numeric, atol=0.01)
            # the affine motion: the flow's value and slope at the centre, tilt aside
            fx, fy = scene.flow(layer, t)
            motion = scene.motion(layer, t)
            middle = np.s_[
                scene.height // 2 - 1 : scene.height // 2 + 1,
                scene.width // 2 - 1 : scene.width // 2 + 1,
            ]
            assert abs(fx[middle].mean() - motion[0]) < 0.5
            assert abs(fy[middle].mean() - motion[1]) < 0.5
            assert abs(np.diff(fx[scene.height // 2]).mean() - motion[2]) < 0.05


@pytest.mark.science
def test_affine_motions_follow_a_simulated_homography_scene_better() -> None:
    """Development scene 6 with homographies (zoom, turn and tilt): the affine model's flow
    is nearer the true flow over the whole image than the translation model's."""
    simulator = create_backend("events.sim", {"preset": "clean", "seed": 0})
    scene = ReflectionScene.random(6, homography=True)
    translation, _ = evaluate_scene(scene, simulator)
    affine, _ = evaluate_scene(scene, simulator, affine=True)
    worst = [
        max(row["flow_error_T_px_s"], row["flow_error_R_px_s"]) for row in (translation, affine)
    ]
    assert worst[1] < 10 and worst[1] < worst[0] - 4


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
        recovered = remove_reflection(
            rendered.frames, rendered.times, np.array(scene.transmission_velocity)
        )
        margin = int(np.ceil(np.hypot(*scene.transmission_velocity) * scene.duration_s)) + 1
        target = rendered.transmission[0]
        assert psnr(recovered, target, margin) > psnr(rendered.frames[0], target, margin) + 5


def test_the_warp_operator_reads_layers_as_scipy_does() -> None:
    """Each frame row of the separation's sparse warp is bilinear interpolation of the
    padded layer (scipy's map_coordinates) where the point seen at q was at the reference
    time: p with p + s·(v + A·(p − c)) = q, solved here by numpy per frame."""
    from scipy.ndimage import map_coordinates

    from substrates.models.events.separation import warp_operator

    rng = np.random.default_rng(5)
    pad, shape, times = 9, (3, 20, 30), np.array([-0.04, 0.0, 0.05])
    layer = rng.uniform(0, 100, (20 + 2 * pad, 30 + 2 * pad))
    motion = np.array([120.0, -60.0, 0.3, -0.2, 0.25, 0.1])
    frames = (warp_operator(shape, times, motion, pad) @ layer.ravel()).reshape(shape)
    centre = np.array([[14.5], [9.5]])
    q = np.stack(np.mgrid[0:20, 0:30][::-1]).reshape(2, -1).astype(float)
    for frame, s in zip(frames, times, strict=True):
        p = centre + np.linalg.solve(
            np.eye(2) + s * motion[2:].reshape(2, 2), q - centre - s * motion[:2, None]
        )
        expected = map_coordinates(layer, [p[1] + pad, p[0] + pad], order=1)
        assert np.allclose(frame.ravel(), expected, atol=1e-9)


@pytest.mark.science
def test_separating_both_layers_beats_the_aligned_minimum() -> None:
    """With both true motions, least-squares separation recovers the transmission and the
    reflection of held-out scenes far better than the aligned minimum recovers T."""
    from substrates.models.events.separation import separate_layers

    gains = []
    for seed in (101, 102, 104):
        scene = ReflectionScene.random(seed)
        rendered = scene.render()
        middle = len(rendered.frames) // 2
        motions = np.array([scene.motion(k) for k in (0, 1)])
        separation = separate_layers(rendered.frames, rendered.times, motions, middle)
        transmission, reflection = separation.transmission, separation.reflection
        assert separation.residual_dn < 1
        margin = int(np.ceil(np.hypot(*scene.transmission_velocity) * scene.duration_s)) + 1
        target = rendered.transmission[middle]
        minimum = remove_reflection(rendered.frames, rendered.times, motions[0], middle)
        gains.append(psnr(transmission, target, margin) - psnr(minimum, target, margin))
        assert psnr(reflection, rendered.reflection[middle], margin) > 23  # 25.7–32.3
    assert min(gains) > 3 and np.mean(gains) > 6  # measured 4.3, 8.0, 11.4 dB
    wrong = motions + np.array([[0, 0, 0, 0, 0, 0], [60, 0, 0, 0, 0, 0]])  # the last scene's
    assert separate_layers(rendered.frames, rendered.times, wrong, middle).residual_dn > 5


def test_a_homography_layer_moves_as_its_warp_says() -> None:
    """A pure zoom about the centre: the pixel at offset d from the centre shows, at time t,
    what the centre-relative texture had at d / (1 + zoom·t); the centre stays put."""
    from substrates.datasets.events.synthetic import Texture

    zoom = 0.5
    scene = ReflectionScene(
        65,
        49,
        0.1,
        (0.0, 0.0),
        (0.0, 0.0),
        1,
        2,
        transmission_warp=(zoom, 0, 0, 0, zoom, 0, 0, 0, 0),
    )
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


def test_the_transmission_is_named_from_the_events_alone() -> None:
    """The layer that caused more events is named the transmission, whatever order the
    search found them in; contrasts follow their motions."""
    from substrates.models.events.cmax import TwoMotions
    from substrates.models.events.layers import chosen_right, transmission_first

    motions = np.array([[10.0, 0, 0, 0, 0, 0], [-50.0, 80.0, 0, 0, 0, 0]])
    found = TwoMotions(motions, np.array([0, 1, 1, 1, 0, 1]), (0.1, 0.2))
    named = transmission_first(found)
    assert np.array_equal(named.motions, motions[::-1])
    assert np.array_equal(named.layer, [1, 0, 0, 0, 1, 0]) and named.contrast == (0.2, 0.1)
    kept = TwoMotions(motions, np.array([0, 0, 1]), (0.1, 0.2))
    assert transmission_first(kept) is kept
    # the truth scores the choice, it does not make it
    assert chosen_right(named.motions, np.array([[-45.0, 75.0], [12.0, 3.0]]))
    assert not chosen_right(named.motions, np.array([[12.0, 3.0], [-45.0, 75.0]]))


def test_a_scene_where_the_reflection_makes_more_events_is_named_wrongly_and_says_so() -> None:
    """Development scene 16: the reflection causes more events than the transmission, so
    the events-only rule names it the transmission; the row reports the miss, and the
    order-free motion error still shows both motions were found."""
    simulator = create_backend("events.sim", {"seed": 0})
    row, _ = evaluate_scene(ReflectionScene.random(16), simulator)
    assert row["reflection_events"] > 0.5
    assert not row["transmission_chosen_right"]
    assert row["worse_motion_error_either_naming_px_s"] < 20 < row["motion_error_T_px_s"]


def test_a_few_events_on_a_large_sensor_give_both_motions() -> None:
    """1,500 events of two translating point sets on a 1280 × 720 sensor (images of warped
    events splatted, not full-sensor; their speed is in benchmarks/event_layers.py)."""
    events, _ = two_clouds(7, (120, -40), (-60, 150), n=(900, 600), size=(1280, 720))
    found = two_motions(events, 1280, 720)
    truth = np.array([(120, -40), (-60, 150)], float)
    errors = np.hypot(*(found.velocities - truth).T), np.hypot(*(found.velocities[::-1] - truth).T)
    assert min(e.max() for e in errors) < 10


def test_a_window_too_large_to_search_whole_ranks_pairs_coarsely_and_refines_the_winner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above SEARCH_EVENTS the pairs are ranked after one coarse round on a thinned cloud
    and the winner refined in full on FINAL_EVENTS, both motions on two threads: the same
    motions to within 2 px/s as the full search of the whole window, and the same layers."""
    from substrates.models.events import cmax

    events, _ = two_clouds(8, (150, 60), (-90, -120), n=(9000, 6000))
    whole = two_motions(events, 128, 96)
    tolerances: set[float | None] = set()
    refine = cmax.refine

    def recorded(*args: object, **kwargs: object) -> np.ndarray:
        tolerances.add(args[6] if len(args) > 6 else kwargs.get("tolerance"))
        return refine(*args, **kwargs)

    monkeypatch.setattr(cmax, "refine", recorded)
    monkeypatch.setattr(cmax, "SEARCH_EVENTS", 3000)
    monkeypatch.setattr(cmax, "FINAL_EVENTS", 8000)
    large = two_motions(events, 128, 96)
    assert tolerances == {cmax.RANKING_TOLERANCE, None}  # ranked coarsely, refined in full
    order = [0, 1] if np.hypot(*(large.velocities - whole.velocities).T).max() < 30 else [1, 0]
    assert np.hypot(*(large.velocities[order] - whole.velocities).T).max() < 2
    layer = large.layer if order == [0, 1] else 1 - large.layer
    assert np.mean(layer == whole.layer) > 0.97


def test_refining_to_a_coarse_tolerance_stops_sooner_near_the_same_peak() -> None:
    from substrates.models.events.cmax import EventCloud, refine

    events, labels = two_clouds(9, (120, -40), (-60, 150), n=(3000, 15))
    cloud = EventCloud.of(events, 128, 96)
    weight = (labels == 0).astype(np.float64)
    seen: list[int] = []
    contrast = cloud.contrast

    def counted(motion: np.ndarray, weight: np.ndarray) -> float:
        seen.append(1)
        return contrast(motion, weight)

    object.__setattr__(cloud, "contrast", counted)  # a frozen dataclass
    fine = refine(cloud, weight, np.array([100.0, -20.0]))
    precise = len(seen)
    coarse = refine(cloud, weight, np.array([100.0, -20.0]), tolerance=6.0)
    assert len(seen) - precise < precise / 2
    assert np.hypot(*(coarse[:2] - fine[:2])) < 6
    assert np.hypot(*(fine[:2] - (120, -40))) < 5
