"""The DVS simulator: numba against the plain per-pixel reference, the torch tier on the CPU
against numba, and the model against closed forms (a log-linear ramp, the leak, shot
noise, the refractory period)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from substrates.backends.errors import BackendUnavailableError, CapabilityError, SubstratesError
from substrates.backends.events import pixel_model as pm
from substrates.backends.registry import create_backend
from substrates.datasets.events.synthetic import drifting_texture

PRESETS = ["clean", "noisy", "default"]


def reference(frames: np.ndarray, times: np.ndarray, options: dict) -> np.ndarray:
    """The plain per-pixel model, driven like the backends (same draws, same order)."""
    params = create_backend("events.sim", options).options.params
    state, intervals = pm.start(frames, times, params, options.get("seed", 0))
    found: list[tuple] = []
    for step in intervals:
        leak = pm.leak_step(state, params, step.dt_s)
        found += pm.reference_interval(step.level, step.eps, step.shot, step.noise, state, leak,
                                       step.t0, step.t1, params.refractory_us)  # fmt: skip
    a = np.array(found, dtype=float).reshape(-1, 4)
    return pm.canonical(a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2], a[:, 3].astype(int))


@pytest.mark.parametrize("preset", PRESETS)
def test_numba_and_torch_equal_the_plain_reference(preset) -> None:
    frames, times = drifting_texture(40, 30, 0.06, (300, -120), seed=2)
    options = {"preset": preset, "seed": 5}
    expected = reference(frames, times, options)
    assert len(expected) > 500 and set(np.unique(expected["p"])) == {0, 1}
    ours = create_backend("events.sim", options).simulate(frames, times)
    assert np.array_equal(ours.array, expected)
    torch_cpu = create_backend("events.sim_gpu", {**options, "device": "cpu"})
    assert np.array_equal(torch_cpu.simulate(frames, times).array, expected)


def one_pixel(intensity, times_us, **dvs) -> np.ndarray:
    frames = np.asarray(intensity, float).reshape(-1, 1, 1)
    sim = create_backend("events.sim", {"preset": "clean", "dvs": {"threshold_sigma": 0, **dvs}})
    return sim.simulate(frames, np.asarray(times_us)).array


def test_a_log_linear_ramp_fires_at_the_exact_crossing_times() -> None:
    rate = 40.0  # log units per second: a crossing of 0.2 every 5 ms
    times = np.arange(0, 100_001, 7_000)  # frames far apart: times come from interpolation
    events = one_pixel(30 * np.exp(rate * times * 1e-6), times)
    expected = np.floor(np.arange(1, len(events) + 1) * 0.2 / rate * 1e6 + 0.5)
    assert len(events) == int(rate * times[-1] * 1e-6 / 0.2 + 1e-9)
    assert np.all(events["p"] == 1) and np.abs(events["t"] - expected).max() <= 1
    down = one_pixel(30 * np.exp(rate * (times[-1] - times) * 1e-6), times)  # above 20 DN
    assert np.all(down["p"] == 0) and len(down) == len(events)


def test_leak_fires_on_events_at_its_rate() -> None:
    times = np.arange(0, 10_000_001, 50_000)
    events = one_pixel(np.full(len(times), 100.0), times, leak_hz=0.5, leak_decades=0)
    assert np.all(events["p"] == 1)
    assert np.allclose(np.diff(events["t"]), 2e6, atol=50_000)  # one every 1/leak_hz


def test_shot_noise_rate_matches_its_formula() -> None:
    side, steps, rate, level = 64, 200, 5.0, 10.0
    frames = np.full((steps + 1, side, side), level)
    times = np.arange(steps + 1) * 10_000
    sim = create_backend("events.sim", {"preset": "clean", "dvs": {"shot_noise_hz": rate},
                                        "seed": 9})  # fmt: skip
    events = sim.simulate(frames, times).array
    expected = rate * (1 - 0.75 * (level + 20) / 275) * side * side * steps * 0.01
    assert abs(len(events) - expected) < 4 * math.sqrt(expected)
    assert abs(np.mean(events["p"]) - 0.5) < 0.05


def test_refractory_period_spaces_each_pixels_events() -> None:
    times = np.arange(0, 20_001, 1_000)
    fast = 30 * np.exp(400 * times * 1e-6)  # a crossing every 500 µs
    free = one_pixel(fast, times)
    held = one_pixel(fast, times, refractory_us=1_200)
    assert np.diff(free["t"]).min() <= 500 and np.diff(held["t"]).min() >= 1_200
    assert len(held) < len(free) / 2


def test_bad_frames_and_a_missing_gpu_are_refused(monkeypatch) -> None:
    sim = create_backend("events.sim")
    with pytest.raises(CapabilityError, match="strictly increasing"):
        sim.simulate(np.ones((3, 4, 4)), np.array([0, 5, 5]))
    with pytest.raises(CapabilityError, match=r"\(T ≥ 2, H, W\)"):
        sim.simulate(np.ones((4, 4)), np.array([0, 1]))
    with pytest.raises(CapabilityError, match="≥ 0 DN"):
        sim.simulate(-np.ones((2, 4, 4)), np.array([0, 1]))
    with pytest.raises(ValueError, match="threshold_on"):
        create_backend("events.sim", {"dvs": {"threshold_on": -1}})
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        create_backend("events.sim_gpu")


def test_a_video_file_drives_the_simulator(tmp_path) -> None:
    iio = pytest.importorskip("imageio.v3")
    pytest.importorskip("imageio_ffmpeg")
    frames, _ = drifting_texture(64, 48, 0.05, (120, 40), seed=6)
    rgb = np.repeat(np.round(frames).astype(np.uint8)[..., None], 3, axis=-1)
    iio.imwrite(tmp_path / "clip.mkv", rgb, fps=120, codec="ffv1", pixelformat="bgr0")
    sim = create_backend("events.sim", {"video": str(tmp_path / "clip.mkv"), "upsample": 2})
    assert (sim.capabilities.width, sim.capabilities.height) == (64, 48)
    served = np.concatenate([p.array for p in sim.packets(5_000)])
    # the same frames given as an array (lossless codec; grey → luminance exactly)
    gray = np.round(frames)
    halves = [np.stack([a, (a + b) / 2]) for a, b in itertools.pairwise(gray)]
    doubled = np.concatenate([*halves, gray[-1:]])
    times = np.round(np.arange(len(doubled)) * 1e6 / 240).astype(np.int64)
    assert len(served) > 100
    assert np.array_equal(served, sim.simulate(doubled, times).array)
    (tmp_path / "junk.mkv").write_bytes(b"no video")
    broken = create_backend("events.sim", {"video": str(tmp_path / "junk.mkv")})
    with pytest.raises(SubstratesError, match="not a readable video"):
        _ = broken.capabilities
