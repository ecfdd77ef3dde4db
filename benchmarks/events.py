"""Event-camera speed, each against its anchor in one run (best of --repeats):

1. Simulator: events per second of events.sim (numba) against the plain per-pixel Python
   reference of the same model (pixel_model.reference_interval), same frames and seed.
2. Decoding: millions of events per second reading EVT 2.0, EVT 3.0 and DAT files of the
   same random events, ours (numba) against expelliarmus (C) on the file expelliarmus wrote,
   and for EVT 3.0 also against the Rust `evt3` crate on the file we wrote (which follows
   the Prophesee spec; expelliarmus' EVT 3.0 writer leaves TIME_HIGH out).
3. Voxel grid (5 bins), event frames and time surfaces (10 windows): ours (numba on the
   CPU) against tonic's numpy functions.

    python benchmarks/events.py --events 5000000
"""

from __future__ import annotations

import argparse
import functools
import tempfile
from pathlib import Path

import numpy as np
from publish import published
from timing import arguments, best

from substrates.datasets.events.events import EVENT_DTYPE, Events
from substrates.datasets.events.files import read_events, write_events

print = functools.partial(print, flush=True)  # rows appear as they are measured


def simulator(repeats: int) -> None:
    from substrates.backends.events import pixel_model as pm
    from substrates.backends.registry import create_backend
    from substrates.datasets.events.synthetic import drifting_texture

    frames, times = drifting_texture(64, 48, 0.1, (200, 50), seed=1)
    sim = create_backend("events.sim", {"preset": "noisy", "seed": 1})
    events = len(sim.simulate(frames, times))
    ours = best(lambda: sim.simulate(frames, times), repeats, warm=True)

    def plain() -> None:
        params = sim.options.params
        state, intervals = pm.start(frames, times, params, 1)
        for step in intervals:
            pm.reference_interval(step, state, params)

    anchor = best(plain, 1)
    print("| simulator (64 × 48 px, 0.1 s, noisy) | events / s | ratio |\n|---|---|---|")
    print(f"| events.sim (numba) | {events / ours:,.0f} | {anchor / ours:.0f}x |")
    print(f"| plain per-pixel reference | {events / anchor:,.0f} | 1x |\n")


def voxels(events: Events, repeats: int) -> None:
    import tonic.functional as tf

    from substrates.datasets.events.representations import (
        event_frames,
        time_surfaces,
        voxel_grid,
    )

    theirs_layout = [("x", "<i2"), ("y", "<i2"), ("t", "<i8"), ("p", "<i2")]
    copy = np.empty(len(events), theirs_layout)
    for name in "xytp":
        copy[name] = events.array[name]
    ours = best(lambda: voxel_grid(events, 5), repeats, warm=True)
    anchor = best(
        lambda: tf.to_voxel_grid_numpy(copy.copy(), (1280, 720, 2), 5), repeats, warm=True
    )
    n = len(events)
    print("\n| voxel grid, 5 bins, 1280 × 720 | Mev/s | ratio |\n|---|---|---|")
    print(f"| ours (numba, CPU) | {n / ours / 1e6:.0f} | {anchor / ours:.1f}x |")
    print(f"| tonic | {n / anchor / 1e6:.0f} | 1x |")
    span = int(events.array["t"][-1] - events.array["t"][0])
    window = max(1, span // 10)  # ten frames
    ours = best(lambda: event_frames(events, window), repeats, warm=True)
    anchor = best(
        lambda: tf.to_frame_numpy(
            copy.copy(), (1280, 720, 2), time_window=window, include_incomplete=True
        ),
        repeats,
        warm=True,
    )
    print("\n| event frames, 10 windows, 1280 × 720 | Mev/s | ratio |\n|---|---|---|")
    print(f"| ours (numba, CPU) | {n / ours / 1e6:.0f} | {anchor / ours:.1f}x |")
    print(f"| tonic | {n / anchor / 1e6:.0f} | 1x |")
    ours = best(lambda: time_surfaces(events, window, window / 4), repeats, warm=True)
    anchor = best(
        lambda: tf.to_timesurface_numpy(
            copy.copy(), (1280, 720, 2), dt=window, tau=window / 4, include_incomplete=True
        ),
        repeats,
        warm=True,
    )
    print("\n| time surfaces, 10 windows, 1280 × 720 | Mev/s | ratio |\n|---|---|---|")
    print(f"| ours (numba, CPU) | {n / ours / 1e6:.0f} | {anchor / ours:.1f}x |")
    print(f"| tonic | {n / anchor / 1e6:.0f} | 1x |")


def main() -> None:
    import evt3 as crate
    from expelliarmus import Wizard

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = arguments(parser, events=200_000, repeats=1)
    simulator(args.repeats)
    rng = np.random.default_rng(0)
    n = args.events
    array = np.empty(n, EVENT_DTYPE)
    array["t"] = np.sort(rng.integers(0, n // 2, n))  # ~2 events per µs, as a busy sensor
    array["x"], array["y"] = rng.integers(0, 1280, n), rng.integers(0, 720, n)
    array["p"] = rng.integers(0, 2, n)
    theirs_dtype = np.dtype([("t", "<i8"), ("x", "<i2"), ("y", "<i2"), ("p", "u1")])
    theirs = np.empty(n, theirs_dtype)
    for name in "txyp":
        theirs[name] = array[name]
    print(f"| file ({n / 1e6:.0f} M events) | anchor | ours Mev/s | anchor Mev/s | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as root:
        for encoding, name in (("evt2", "e2.raw"), ("evt3", "e3.raw"), ("dat", "e.dat")):
            path = Path(root) / name
            Wizard(encoding=encoding).save(path, theirs)
            ours = best(lambda p=path: read_events(p, 1280, 720), args.repeats, warm=True)
            anchor = best(
                lambda p=path, e=encoding: Wizard(encoding=e).read(p), args.repeats, warm=True
            )
            print(
                f"| {encoding}, written by expelliarmus | expelliarmus | {n / ours / 1e6:.0f} | "
                f"{n / anchor / 1e6:.0f} | {anchor / ours:.2f}x |"
            )
        path = Path(root) / "spec.raw"
        write_events(Events(array, 1280, 720), path, "evt3")
        ours = best(lambda: read_events(path), args.repeats, warm=True)
        anchor = best(lambda: crate.decode_file(str(path)), args.repeats, warm=True)
        print(
            f"| evt3, written by substrates | evt3 crate (Rust) | {n / ours / 1e6:.0f} | "
            f"{n / anchor / 1e6:.0f} | {anchor / ours:.2f}x |"
        )
    voxels(Events(array, 1280, 720), args.repeats)


if __name__ == "__main__":
    with published("events"):
        main()
