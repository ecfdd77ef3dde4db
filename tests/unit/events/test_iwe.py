"""Images of warped events held sparsely equal the dense full-sensor image that scipy blurs,
on both the sparse and the dense (bounding box) path, at the sensor's edges and under
affine motions; the value where each event lands equals scipy's bilinear interpolation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter, map_coordinates

from substrates.models.events.cmax import origin
from substrates.models.events.iwe import SMOOTHING_PX, IWEWorkspace


def dense_reference(x, y, dt, polarity, weight, motion, width, height, truncate=4.0) -> np.ndarray:
    """Bilinear votes by numpy's add.at into a full (2, H, W) image, blurred by scipy."""
    wx, wy = origin(motion, x, y, dt, width, height)
    ix, iy = np.floor(wx).astype(int), np.floor(wy).astype(int)
    fx, fy = wx - ix, wy - iy
    image = np.zeros((2, height, width))
    for ox, oy, share in (
        (0, 0, (1 - fx) * (1 - fy)),
        (1, 0, fx * (1 - fy)),
        (0, 1, (1 - fx) * fy),
        (1, 1, fx * fy),
    ):
        px, py = ix + ox, iy + oy
        inside = (px >= 0) & (px < width) & (py >= 0) & (py < height)
        np.add.at(image, (polarity[inside], py[inside], px[inside]), (weight * share)[inside])
    return gaussian_filter(image, (0, SMOOTHING_PX, SMOOTHING_PX), truncate=truncate)


def random_events(rng, n, width, height):
    x = rng.uniform(-3, width + 3, n)  # some land outside: their votes are dropped
    y = rng.uniform(-3, height + 3, n)
    return x, y, rng.uniform(-0.1, 0.1, n), rng.integers(0, 2, n), rng.uniform(0.2, 1.5, n)


@pytest.mark.parametrize(("events", "path"), [(30, 0), (300, 0), (20_000, 1)])
def test_the_image_equals_scipys_blur_of_the_full_sensor(events: int, path: int) -> None:
    rng = np.random.default_rng(events)
    width, height = 97, 61
    space = IWEWorkspace(width, height)
    for motion in (
        np.zeros(6),
        np.array([140.0, -75.0, 0, 0, 0, 0]),
        np.array([-60.0, 30.0, 0.4, -0.2, 0.25, 0.3]),
    ):
        x, y, dt, polarity, weight = random_events(rng, events, width, height)
        weight[::7] = 0.0  # events outside the subset being imaged
        expected = dense_reference(x, y, dt, polarity, weight, motion, width, height)
        total, squares = space.render(x, y, dt, polarity, weight, motion)
        assert space.state[0] == path  # sparse for a few events, the box for many
        assert np.allclose(space.dense(), expected, rtol=0, atol=1e-12)
        assert total == pytest.approx(expected.sum(), rel=1e-12)
        assert squares == pytest.approx(np.square(expected).sum(), rel=1e-10)
        landing = space.landing(x, y, dt, polarity, motion)
        wx, wy = origin(motion, x, y, dt, width, height)
        wx, wy = np.clip(wx, 0, width - 1.001), np.clip(wy, 0, height - 1.001)
        for p in (0, 1):
            mine = polarity == p
            scipy_value = map_coordinates(expected[p], [wy[mine], wx[mine]], order=1)
            assert np.allclose(landing[mine], scipy_value, rtol=0, atol=1e-12)
        space.clear()
        # cleared: all buffers are zero again, so the next image starts clean
        assert not space.image.any() and not space.votes.any() and not space.tmp.any()


def test_nothing_landing_on_the_sensor_gives_an_empty_image() -> None:
    space = IWEWorkspace(20, 12)
    x, y = np.array([-50.0, 400.0]), np.array([3.0, 4.0])
    total, squares = space.render(x, y, np.zeros(2), np.array([0, 1]), np.ones(2), np.zeros(6))
    assert (total, squares) == (0.0, 0.0)
    space.clear()
    assert not space.image.any()


def test_a_sensor_narrower_than_a_footprint_is_refused() -> None:
    with pytest.raises(ValueError, match="too small"):
        IWEWorkspace(9, 40)


def test_a_cloud_in_pixel_order_is_the_same_cloud() -> None:
    """Stored in pixel order (for the renders' locality), a cloud thins to the same events,
    every k-th in time, gives the same contrast to rounding, and maps per-event results
    back to the events' own order."""
    from substrates.datasets.events.events import EVENT_DTYPE
    from substrates.models.events.cmax import EventCloud

    rng = np.random.default_rng(5)
    events = np.empty(30_000, EVENT_DTYPE)
    events["t"] = np.sort(rng.integers(0, 200_000, events.size))
    events["x"], events["y"] = rng.integers(0, 320, events.size), rng.integers(0, 240, events.size)
    events["p"] = rng.integers(0, 2, events.size)
    timed, local = EventCloud.of(events, 320, 240), EventCloud.of(events, 320, 240, local=True)
    assert np.all(np.diff(events["y"][local.index]) >= 0)  # rows in order
    motion = np.array([80.0, -30.0, 0.02, 0.0, 0.0, -0.01])
    for most in (30_000, 7_000, 2_000):
        a, b = timed.thinned(most), local.thinned(most)
        assert np.array_equal(np.sort(a.x), np.sort(b.x))
        assert b.contrast(motion, np.ones(b.x.size)) == pytest.approx(
            a.contrast(motion, np.ones(a.x.size)), rel=1e-11
        )
    landed = local.in_input_order(local.landing(motion))
    np.testing.assert_allclose(landed, timed.landing(motion), rtol=1e-12, atol=1e-15)


def test_the_candidate_grid_equals_scipys_blur_truncated_at_two_sigma() -> None:
    """The grid's images use a 2σ footprint (GRID_RADIUS): each translation's sum and sum
    of squares equal scipy's full-sensor blur with truncate=2, on the splatted and the box
    path."""
    from substrates.models.events.iwe import GRID_RADIUS, translation_grid

    rng = np.random.default_rng(11)
    width, height = 83, 57
    velocities = np.array([[0.0, 0.0], [140.0, -75.0], [-260.0, 20.0]])
    for events in (40, 20_000):
        x, y, dt, polarity, weight = random_events(rng, events, width, height)
        sums = translation_grid(x, y, dt, polarity, weight, velocities, width, height, GRID_RADIUS)
        for (vx, vy), (total, squares) in zip(velocities, sums, strict=True):
            wx, wy = origin(np.array([vx, vy, 0, 0, 0, 0]), x, y, dt, width, height)
            votes = dense_reference(
                wx, wy, np.zeros(events), polarity, weight, np.zeros(6), width, height, truncate=2.0
            )
            assert total == pytest.approx(votes.sum(), rel=1e-12)
            assert squares == pytest.approx(np.square(votes).sum(), rel=1e-10)


def test_pixel_order_is_numpys_lexsort() -> None:
    """A counting sort by pixel, stable, equal to lexsort; events off the sensor fall back
    to lexsort itself."""
    from substrates.models.events.iwe import pixel_order

    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 64, 50_000).astype(np.uint16), rng.integers(0, 48, 50_000)
    assert np.array_equal(pixel_order(x, y, 64, 48), np.lexsort((x, y)))
    x[7] = 64  # one event beyond the sensor's width
    assert np.array_equal(pixel_order(x, y, 64, 48), np.lexsort((x, y)))
    assert pixel_order(x[:0], y[:0], 64, 48).size == 0


def test_gathered_events_are_numpys_columns_taken_in_order() -> None:
    from substrates.datasets.events.events import EVENT_DTYPE
    from substrates.models.events.iwe import gather_events

    rng = np.random.default_rng(4)
    events = np.empty(10_000, EVENT_DTYPE)
    events["t"] = np.sort(rng.integers(0, 10**9, events.size))
    events["x"], events["y"] = rng.integers(0, 1280, events.size), rng.integers(0, 720, events.size)
    events["p"] = rng.integers(0, 2, events.size)
    order, jitter = rng.permutation(events.size), rng.uniform(-0.5, 0.5, (2, events.size))
    middle = float(events["t"][5_000])
    x, y, dt, p = gather_events(order, events, jitter, middle)
    assert np.array_equal(x, (events["x"] + jitter[0])[order])
    assert np.array_equal(y, (events["y"] + jitter[1])[order])
    assert np.array_equal(dt, ((events["t"].astype(np.float64) - middle) * 1e-6)[order])
    assert np.array_equal(p, events["p"].astype(np.int64)[order])
