"""The DVS simulator: numba against the plain per-pixel reference, the torch tier on the CPU
against numba, and the model against closed forms (a log-linear ramp, the leak, shot
noise, the refractory period)."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy import integrate, stats

from substrates.backends.events import pixel_model as pm
from substrates.backends.registry import create_backend
from substrates.datasets.events.synthetic import Texture, drifting_texture
from substrates.errors import BackendUnavailableError, CapabilityError, SubstratesError

PRESETS = ["clean", "noisy", "default"]


def reference(frames: np.ndarray, times: np.ndarray, options: dict) -> np.ndarray:
    """The plain per-pixel model, driven like the backends (same draws, same order)."""
    params = create_backend("events.sim", options).options.params
    state, intervals = pm.start(frames, times, params, options.get("seed", 0))
    found: list[tuple] = []
    for step in intervals:
        found += pm.reference_interval(step, state, params)
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


def test_leak_fires_on_events_at_its_own_times() -> None:
    times = np.arange(0, 10_000_001, 50_000)  # frames every 50 ms
    events = one_pixel(np.full(len(times), 100.0), times, leak_hz=0.5, leak_decades=0)
    assert np.all(events["p"] == 1) and len(events) >= 4
    assert np.abs(np.diff(events["t"]) - 2e6).max() <= 1  # one every 1/leak_hz, to the µs
    side = 30  # many pixels: each leaks from its own phase, not in bursts at frame times
    sim = create_backend(
        "events.sim", {"preset": "clean", "seed": 2, "dvs": {"leak_hz": 0.5, "leak_decades": 0}}
    )
    frames = np.full((len(times), side, side), 100.0)
    leaked = sim.simulate(frames, times).array
    first = leaked[np.unique(leaked["y"] * side + leaked["x"], return_index=True)[1]]["t"]
    assert len(first) == side * side
    assert stats.kstest(first / 2e6, "uniform").pvalue > 0.01
    assert np.mean(first % 50_000 == 0) < 0.01


def test_the_low_pass_follows_an_exact_ode_solution_at_any_frame_rate() -> None:
    """A log-linear ramp through the 30 Hz photoreceptor: event times against scipy's
    solution of dlp/dt = 2π·f_c·b(t)·(L(t) − lp) with the true continuous input."""
    rate, cutoff, span = 40.0, 30.0, 0.1  # log units / s, Hz, s

    def level(t: float) -> float:
        return math.log(30) + rate * t

    def rhs(t: float, lp: np.ndarray) -> list[float]:
        bright = (30 * math.exp(rate * t) + 20) / 275
        return [2 * math.pi * cutoff * bright * (level(t) - lp[0])]

    solution = integrate.solve_ivp(
        rhs, (0, span), [level(0)], rtol=1e-11, atol=1e-12, dense_output=True, max_step=1e-5
    )
    grid = np.linspace(0, span, 1_000_001)
    steps = np.floor((solution.sol(grid)[0] - level(0)) / 0.2 + 1e-12)
    exact = np.round(grid[np.flatnonzero(np.diff(steps) > 0) + 1] * 1e6)
    for every_us, within_us in ((10_000, 150), (1_000, 6), (100, 2)):
        times = np.arange(0, int(span * 1e6) + 1, every_us)
        events = one_pixel(30 * np.exp(rate * times * 1e-6), times, cutoff_hz=cutoff)
        assert len(events) == len(exact) > 10
        assert np.abs(events["t"] - exact).max() <= within_us, every_us


def paired_gaps(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """|Δt| between the k-th events of each pixel and polarity in two streams, and how many
    events have no partner."""

    def keyed(events: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = (events["y"].astype(np.int64) * 4096 + events["x"]) * 2 + events["p"]
        order = np.lexsort((events["t"], key))
        key, t = key[order], events["t"][order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        rank = np.arange(len(key)) - np.repeat(starts, np.diff(np.r_[starts, len(key)]))
        return key * 1_000_000 + rank, t

    ka, ta = keyed(a)
    kb, tb = keyed(b)
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    return np.abs(ta[ia] - tb[ib]), len(a) + len(b) - 2 * len(ia)


@pytest.mark.parametrize("preset", PRESETS)
def test_halving_or_doubling_the_frame_rate_keeps_the_events(preset) -> None:
    """The same drifting texture rendered every 1 ms, 0.5 ms and 2 ms: the events move by
    a median ≤ 10 µs (99th percentile ≤ 200 µs) and ≤ 0.5 % lose their partner. The clean
    sensor's figures are the rendering's own (its input changes with the frame rate); the
    filtered presets stay within them. The model before sub-steps moved them by 0.5–1 ms."""
    texture = Texture.random(3)

    def simulate(every_us: int) -> np.ndarray:
        times = np.arange(0, 200_001, every_us)
        frames = np.stack(
            [130 + 96 * texture.render(64, 48, 150 * t * 1e-6, 40 * t * 1e-6) for t in times]
        )
        options = {"preset": preset, "seed": 4, "dvs": {"shot_noise_hz": 0}}
        return create_backend("events.sim", options).simulate(frames, times).array

    middle = simulate(1_000)
    assert len(middle) > 10_000
    for every_us in (500, 2_000):
        gaps, lone = paired_gaps(middle, simulate(every_us))
        assert np.median(gaps) <= 10 and np.percentile(gaps, 99) <= 200, every_us
        assert lone <= 0.005 * len(middle), every_us


def test_an_interval_with_more_events_than_the_first_buffer_is_run_again() -> None:
    frames = np.stack([np.full((40, 40), 50.0), np.full((40, 40), 200.0)])
    times = np.array([0, 1_000])
    options = {"preset": "default", "seed": 1, "dvs": {"shot_noise_hz": 0, "refractory_us": 0}}
    expected = reference(frames, times, options)
    assert len(expected) > 4 * 1024  # ln 4 / 0.2: up to six ON crossings a pixel
    assert np.array_equal(
        create_backend("events.sim", options).simulate(frames, times).array, expected
    )


def test_shot_noise_rate_matches_its_formula() -> None:
    side, steps, rate, level = 64, 200, 5.0, 10.0
    frames = np.full((steps + 1, side, side), level)
    times = np.arange(steps + 1) * 10_000
    sim = create_backend(
        "events.sim", {"preset": "clean", "dvs": {"shot_noise_hz": rate}, "seed": 9}
    )
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


def test_the_fused_cuda_kernel_equals_numba_under_the_cuda_simulator() -> None:
    """events.sim_gpu's fused kernel, run by numba's CUDA simulator (its own process: the
    simulator is chosen when numba starts), against events.sim on every preset and on an
    interval whose events outgrow the kernel's first buffer."""
    script = textwrap.dedent("""
        import numpy as np
        from substrates.backends.registry import create_backend
        from substrates.datasets.events.synthetic import drifting_texture

        def same(frames, times, options):
            cpu = create_backend("events.sim", options).simulate(frames, times).array
            fused = create_backend("events.sim_gpu", {**options, "device": "cpu",
                                                      "kernel": "fused"})
            return len(cpu) > 40 and np.array_equal(fused.simulate(frames, times).array, cpu)

        frames, times = drifting_texture(12, 10, 0.03, (300, -120), seed=2)
        for preset in ("clean", "noisy", "default"):
            print(same(frames, times, {"preset": preset, "seed": 5}))
        jump = np.stack([np.full((32, 36), 50.0), np.full((32, 36), 200.0)])
        print(same(jump, np.array([0, 1_000]), {"preset": "default", "seed": 1,
                   "dvs": {"shot_noise_hz": 0, "refractory_us": 0}}))
    """)
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["True"] * 4


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
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    with pytest.raises(ValueError, match="kernel: fused runs on CUDA"):
        create_backend("events.sim_gpu", {"device": "cpu", "kernel": "fused"})


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


def test_frames_normalised_to_unit_range_are_named_and_scaled_by_option() -> None:
    """A drifting texture divided by 255 changes by under a contrast threshold (the model
    is linear below 20 DN): a FrameRangeWarning names the brightest pixel and the fix;
    `intensity_scale: 255` gives exactly the events of the frames in DN, without warning."""
    import warnings

    from substrates.backends.events.base import FrameRangeWarning

    frames, times = drifting_texture(40, 30, 0.06, (300, -120), seed=2)
    in_dn = create_backend("events.sim", {"seed": 5}).simulate(frames, times)
    unit = frames / 255.0
    with pytest.warns(FrameRangeWarning, match=r"brightest pixel is 0\.\d+ DN.*× 255"):
        dim = create_backend("events.sim", {"seed": 5}).simulate(unit, times)
    assert len(dim) < len(in_dn) / 100
    with warnings.catch_warnings():
        warnings.simplefilter("error", FrameRangeWarning)
        scaled = create_backend("events.sim", {"seed": 5, "intensity_scale": 255}).simulate(
            unit, times
        )
    assert len(in_dn) > 1000 and len(scaled) == len(in_dn)
    assert np.array_equal(scaled.array, in_dn.array)
